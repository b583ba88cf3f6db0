"""The kernel's flat data: `GameTables` (the resolved game definition as arrays, read-only) and
`State` (one game in progress, reset and reused game after game).

Both are NamedTuples of numpy arrays and scalars, so numba compiles them to plain structs. A
comment at every array says what its indices mean. Scalars that change during a game live in
`State.g`, indexed by the G_* constants below. This module holds no numba code.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcell.vocabulary import (
    COMPLETED_TYPES,
    GAME_RECORD,
    GOLGI_NONE,
    HP_SOURCES,
    N_RESOURCES,
    PLAYER_RECORD,
    game_record_dtype,
    player_record_dtype,
)

# -- State.g scalar slots ------------------------------------------------------------------
G_SEED = 0  # master seed
G_DEAL = 1  # deal index (chance streams are keyed by it)
G_ROUND = 2  # current round, 1-based (0 during setup)
G_PHASE = 3  # PH_* below
G_TO_MOVE = 4  # seat whose decision is next
G_MARKER = 5  # seat holding the First Player Marker
G_ROUND_HOLDER = 6  # seat that held the marker when this round's Phase 1 started
G_GREY_LEFT = 7  # grey flasks still in the grey flask area this round
G_DISCOUNT = 8  # card_discount in force this round
G_DECK_N = 9  # cards in the deck (stored bottom first: the top is deck[G_DECK_N - 1])
G_DISCARD_N = 10  # cards in the discard pile (in the order discarded)
G_EVENT_N = 11  # events in the event deck
G_EVENT_NEXT = 12  # position in event_deck of the next event to reveal
G_RESHUFFLES = 13  # reshuffles of the discard pile so far
G_TRACE_ON = 14  # 1 to write a trace
G_TRACE_LEN = 15  # words written to the trace
G_TRACE_OVERFLOW = 16  # 1 if the trace buffer was too small
G_EVENTS_REMOVED = 17  # bit set of event ids set aside at setup
G_DETOX_REMOVED = 18  # bit set of card ids removed by two_player_remove_detox
G_SETUP_SEAT = 19  # next seat to decide during setup
G_VISIBLE = 20  # bit set of visible card ids: dealt, or ever in the Card Area
G_PICKS = 21  # placements made so far this round (own and grey): the next pick order
G_BLOCK = 22  # block (docs/method.md) of the game being played: row of the State.tallies arrays
G_POLICY_ERROR = 23  # seat + 1 of a user policy that returned an index outside the legal list
G_POLICY_PREFIX = 24  # chance.stream_prefix(seed, players, deal, CHANCE_POLICY), uint64 bits
G_DIRECTION = 25  # +1 or -1: the way Phase 1 walks round the table (docs/rules.md §2, placement_order)
G_LAUREATES_CIRCLE = 26  # bit set of seats that placed at Laureates since the circle began (laureates_once_each)
G_N = 27

# -- phases ---------------------------------------------------------------------------------
PH_RETURN = 0  # setup step 3: each seat returns one dealt card
PH_COMBO = 1  # setup step 5: each seat takes a 2-resource combination
PH_PLACE = 2  # Phase 1 of a round
PH_OVER = 3  # scored

MAX_CANDIDATES = 16  # most candidate actions the rollout policy plays out

NO_GOLGI = GOLGI_NONE  # a vesicle that has not visited the Golgi


class GameTables(NamedTuple):
    """The resolved game for one player count, as flat arrays (read-only in the kernel)."""

    players: int
    rounds: int  # events in the deck + 1
    max_rounds: int  # width of per-round records
    n_ids: int  # card id space: max card id + 1
    n_loc: int
    n_spots: int
    n_slots: int
    n_events: int  # all events of the data
    events_set_aside: int
    goals_revealed: int
    goals_revealed_max: int  # most goals revealed at any player count (record width)
    n_goals: int
    n_epi: int
    max_batch: int
    flasks: int  # own flasks per player
    grey_flasks: int
    grey_per_player: int
    vesicles: int  # Transport Vesicle disks per player
    markers: int  # goal markers per player
    first_marker_hp: np.ndarray  # int32[goal cards already claimed] -> HP of the next first marker
    max_markers_per_goal: int
    cards_dealt: int
    detox_removed: int  # Detoxification cards removed at setup (0 unless 2 players + option)
    epigenetic: bool
    limited: bool
    rotate: bool  # turn_order = "rotate"
    holder_may_take: bool
    placement_order: int  # vocabulary.PO_*: clockwise, snake_pass, snake_round
    laureates_once_each: bool  # no second Laureates visit until every seat has made one
    goals_open_round: int  # first round in which a goal marker may be placed
    laureates_marker_only: bool  # Laureates offers no goal marker
    max_budding: int  # largest budding count over the three organelles
    max_legal: int  # bound on the number of legal actions
    # flow row layout (vocabulary.flow_layout)
    fr_setup_atp: int
    fr_pick: int
    fr_additional: int
    fr_start_bonus: int
    fr_spot: int  # + location
    fr_yield_bonus: int
    fr_location_bonus: int
    fr_exhaust: int
    fr_event: int
    fr_spend_spot: int  # + location
    fr_card_price: int
    fr_completion: int  # + completed type
    fr_loaded: int
    fr_discard: int
    fr_cargo_loaded: int
    fr_cargo_returned: int
    fr_cargo_lost: int
    n_flow: int
    # board
    loc_action: np.ndarray  # int32[location] -> index into vocabulary.LOCATION_ACTIONS
    loc_first_spot: np.ndarray  # int32[location] -> first spot id
    loc_n_spots: np.ndarray  # int32[location] -> number of spots
    spot_cost: np.ndarray  # int32[spot, resource]
    spot_gain: np.ndarray  # int32[spot, resource]
    spot_costly: np.ndarray  # int32[spot] -> 1 if the spot costs anything (spot_cost row not all 0)
    # actions whose stock changes the board fixes, row k: the collect locations' spots in board
    # order, then exhausting for mRNA, Lipid, ATP (policies/evaluate.py fixed_values)
    loc_first_collect: np.ndarray  # int32[location] -> row of a collect location's first spot (-1)
    fixed_net: np.ndarray  # float64[resource, row] the stock change; 0.0 in the padding
    exhaust_row: int  # row of the first exhaust (the number of collect spots)
    n_fixed_pad: int  # rows, rounded up to a multiple of vocabulary.LEGAL_SLACK
    slot_prices: np.ndarray  # int32[slot] -> ATP price
    starting_atp: np.ndarray  # int32[seat]
    starting_hp: np.ndarray  # int32[seat] (rules.starting_hp_by_seat)
    combos: np.ndarray  # int32[combo, 2] -> the two resources
    supply: np.ndarray  # int32[resource] -> component count
    budding: np.ndarray  # int32[organelle] -> budding locations (rough, smooth, golgi)
    # cards, indexed by card id
    card_in_game: np.ndarray  # bool[id] -> the id is a card of the set
    card_type: np.ndarray  # int32[id] -> vocabulary.CARD_TYPES index
    card_atp: np.ndarray  # int32[id]
    card_protein: np.ndarray  # int32[id]
    card_carb: np.ndarray  # int32[id]
    card_lipid: np.ndarray  # int32[id]
    card_golgi: np.ndarray  # int32[id] -> GOLGI_CARB / GOLGI_LIPID, -1 none
    card_hp: np.ndarray  # int32[id]
    card_bonus: np.ndarray  # int32[id] -> bonus_per_match
    card_gain: np.ndarray  # int32[id, resource] -> Additional Resource gain
    type_mask: np.ndarray  # int64[card type] -> bit set of the card ids of that type
    vesicle_type_mask: int  # bit set of the hormone and receptor card ids
    card_plan: np.ndarray  # int32[id, vocabulary.CP_*] -> a card's route, for the evaluator (vocabulary)
    card_match: np.ndarray  # int64[id] -> a hormone's matching receptors' type mask (else 0)
    # events, indexed by position in the data (ids in event_id)
    event_id: np.ndarray  # int32[event]
    ev_first: np.ndarray  # int32[event] -> first effect row
    ev_count: np.ndarray  # int32[event] -> number of effect rows
    eff_kind: np.ndarray  # int32[effect] -> vocabulary.EVENT_EFFECTS index
    eff_loc: np.ndarray  # int32[effect] -> location (-1)
    eff_res: np.ndarray  # int32[effect] -> resource (-1)
    eff_types: np.ndarray  # int32[effect] -> bit set of completed types (completed_at_least)
    eff_cond: np.ndarray  # int32[effect] -> vocabulary.HP_IF_CONDITIONS index (-1)
    eff_n: np.ndarray  # int32[effect]
    eff_m: np.ndarray  # int32[effect]
    eff_limit: np.ndarray  # int32[effect]
    # goals, indexed by position in the data
    goal_id: np.ndarray  # int32[goal]
    goal_criterion: np.ndarray  # int32[goal] -> vocabulary.GOAL_CRITERIA index
    goal_types: np.ndarray  # int32[goal] -> bit set of completed types
    goal_res: np.ndarray  # int32[goal] -> resource (per_leftover)
    goal_n: np.ndarray  # int32[goal] -> divisor (per_leftover)
    goal_hp: np.ndarray  # int32[goal]
    # epigenetic cards, indexed by position in the data
    epi_id: np.ndarray  # int32[card]
    epi_yield: np.ndarray  # int32[card, location] -> yield_bonus
    epi_discount: np.ndarray  # int32[card, completed type] -> cost_discount
    epi_vesicles: np.ndarray  # int32[card] -> extra disks
    epi_markers: np.ndarray  # int32[card] -> extra goal markers
    epi_start: np.ndarray  # int32[card, resource] -> start_bonus


class Seating(NamedTuple):
    """The seating of the game being played (the game loop fills it from the field's rotation)."""

    player: np.ndarray  # int64[seat] player id (the field's player slot)
    policy: np.ndarray  # int64[seat] kernel policy id (policies/registry.py KERNEL_*)
    label: np.ndarray  # int64[seat] policy label of the records (the field's policy index)
    params: np.ndarray  # float64[seat, parameter] the seat's policy parameters


class Workspace(NamedTuple):
    """The policies' workspace: what a stopped decision leaves for its caller, and what the
    View and the policies derive."""

    legal: np.ndarray  # int64[max_legal] legal action codes of the current decision
    values: np.ndarray  # float64[max_legal] an evaluation of each legal action
    hand_size: np.ndarray  # int32[seat] cards in hand (the View's derived array)
    observation: np.ndarray  # int64[observation_size] a user policy's observation vector
    candidates: np.ndarray  # int64[MAX_CANDIDATES] the rollout policy's candidate action indices
    candidate_score: np.ndarray  # float64[MAX_CANDIDATES] their summed playout scores


class Tallies(NamedTuple):
    """Block aggregates, accumulated over the games a worker plays into row G_BLOCK (never reset
    by reset_state): one Phase 1 with a card in a slot is one exposure at the slot's price."""

    offered: np.ndarray  # int64[block, card id, slot, effective price] exposures
    bought: np.ndarray  # int64[block, card id, slot, effective price] purchases
    discarded: np.ndarray  # int64[block, card id] discarded from slot 0 unbought
    acquired: np.ndarray  # int64[block, card id, round] kept at setup (0) or bought
    completed: np.ndarray  # int64[block, card id, round] completed
    occupancy: np.ndarray  # int64[block, spot, round - 1, pick order] placements


class State(NamedTuple):
    """One game in progress (seats index every per-player array), with the seating it is played
    in, the policies' workspace and the run's tallies as named parts."""

    g: np.ndarray  # int64[G_N] scalars (G_* slots)
    stock: np.ndarray  # int32[seat, resource] personal stock
    hp: np.ndarray  # int32[seat, source] HP by source (vocabulary.HP_SOURCES)
    hand: np.ndarray  # int64[seat] bit set of card ids in hand
    dealt: np.ndarray  # int64[seat] cards dealt at setup
    kept: np.ndarray  # int64[seat] cards kept at setup
    bought: np.ndarray  # int64[seat] cards bought from the Card Area
    completed: np.ndarray  # int64[seat] cards completed
    returned: np.ndarray  # int32[seat] card id returned at setup (-1 before)
    completed_by_type: np.ndarray  # int32[seat, completed type]
    own_left: np.ndarray  # int32[seat] own flasks not yet placed or exhausted this round
    out: np.ndarray  # int32[seat] 1 once passed this round
    grey_round: np.ndarray  # int32[seat] grey flasks placed this round
    disks_free: np.ndarray  # int32[seat] vesicle disks in reserve
    markers_left: np.ndarray  # int32[seat] goal markers not yet placed
    epi: np.ndarray  # int32[seat] epigenetic card (data position), -1 none
    yield_bonus: np.ndarray  # int32[seat, location] from the epigenetic card
    discount: np.ndarray  # int32[seat, completed type] completion ATP discount
    ves_owner: np.ndarray  # int32[organelle, budding index] seat, -1 empty
    ves_origin: np.ndarray  # int32[organelle, budding index] ORG_ROUGH / ORG_SMOOTH
    ves_load: np.ndarray  # int32[organelle, budding index] ER load (Protein or Lipid)
    ves_golgi: np.ndarray  # int32[organelle, budding index] Golgi resource, -1 none
    spot_occ: np.ndarray  # int32[spot] seat whose flask is there, -1 free
    slot_card: np.ndarray  # int32[slot] card id, -1 empty
    deck: np.ndarray  # int32[position] card ids, bottom first: top = deck[G_DECK_N - 1]
    discard: np.ndarray  # int32[position] card ids in the discard pile (G_DISCARD_N used)
    event_deck: np.ndarray  # int32[position] event (data position) in reveal order
    goals: np.ndarray  # int32[goal index] goal (data position) in play
    goal_mark: np.ndarray  # int32[goal index, seat] 1 if that seat has a marker there
    goal_nmark: np.ndarray  # int32[goal index] markers on the goal card
    bonus_res: np.ndarray  # int32[location] location_bonus resource this round, -1 none
    bonus_n: np.ndarray  # int32[location] location_bonus amount
    supply: np.ndarray  # int32[resource] tokens in the supply (limited supply)
    flows: np.ndarray  # int32[seat, flow row, resource] (vocabulary.flow_row_names)
    exhausted: np.ndarray  # int32[seat] flasks exhausted over the game
    grey_total: np.ndarray  # int32[seat] grey flasks placed over the game
    laureates: np.ndarray  # int32[seat] Laureates taken
    laureates_holder: np.ndarray  # int32[seat] Laureates taken while holding the marker
    markers_placed: np.ndarray  # int32[seat] goal markers placed
    goal_round: np.ndarray  # int32[goal index, seat] round the seat's marker went on (0 none)
    goal_order: np.ndarray  # int32[goal index, seat] its place in the goal's claim order (1 first)
    goal_paid: np.ndarray  # int32[goal index, seat] the goal's end bonus paid to the seat
    ves_lost: np.ndarray  # int32[seat] own vesicles displaced
    placements: np.ndarray  # int32[seat, location] placements (own and grey flasks)
    hp_round: np.ndarray  # int32[seat, round - 1] HP after each round
    first_player: np.ndarray  # int32[round - 1] marker holder at the start of the round
    peak: np.ndarray  # int32[resource] most in use (stock + cargo) at once
    shortfall: np.ndarray  # int32[resource] gains cut by the limited supply
    decisions: np.ndarray  # int64[seat] policy decisions taken (stream index)
    scratch: np.ndarray  # int32[n_ids] workspace for shuffles
    scratch_hash: np.ndarray  # uint64[n_ids] workspace for shuffles
    final_hp: np.ndarray  # int64[seat] final HP (filled at scoring)
    win_share: np.ndarray  # float64[seat] win share (filled at scoring)
    rank: np.ndarray  # int64[seat] rank (filled at scoring)
    trace: np.ndarray  # int64[capacity] the trace (vocabulary TRACE format) when G_TRACE_ON
    seating: Seating
    workspace: Workspace
    tallies: Tallies


def max_picks(gt: GameTables) -> int:
    """Most placements one round can hold (own flasks plus grey flasks)."""
    return gt.players * gt.flasks + gt.grey_flasks


def new_state(
    gt: GameTables, trace_capacity: int = 0, blocks: int = 1, n_params: int = 1,
    observation_size: int = 1,
) -> State:
    """Allocate a State sized for the game tables (reset by the kernel before each game),
    with block aggregates for `blocks` blocks, `n_params` policy parameters per seat and a user
    policy's observation vector of `observation_size` words."""
    p, n_ids = gt.players, gt.n_ids
    n_prices = int(gt.slot_prices.max()) + 1
    i32 = np.int32
    n_cards_space = max(n_ids, 1)
    return State(
        g=np.zeros(G_N, np.int64),
        stock=np.zeros((p, N_RESOURCES), i32),
        hp=np.zeros((p, len(HP_SOURCES)), i32),
        hand=np.zeros(p, np.int64),
        dealt=np.zeros(p, np.int64),
        kept=np.zeros(p, np.int64),
        bought=np.zeros(p, np.int64),
        completed=np.zeros(p, np.int64),
        returned=np.zeros(p, i32),
        completed_by_type=np.zeros((p, len(COMPLETED_TYPES)), i32),
        own_left=np.zeros(p, i32),
        out=np.zeros(p, i32),
        grey_round=np.zeros(p, i32),
        disks_free=np.zeros(p, i32),
        markers_left=np.zeros(p, i32),
        epi=np.zeros(p, i32),
        yield_bonus=np.zeros((p, gt.n_loc), i32),
        discount=np.zeros((p, len(COMPLETED_TYPES)), i32),
        ves_owner=np.zeros((3, gt.max_budding), i32),
        ves_origin=np.zeros((3, gt.max_budding), i32),
        ves_load=np.zeros((3, gt.max_budding), i32),
        ves_golgi=np.zeros((3, gt.max_budding), i32),
        spot_occ=np.zeros(gt.n_spots, i32),
        slot_card=np.zeros(gt.n_slots, i32),
        deck=np.zeros(n_cards_space, i32),
        discard=np.zeros(n_cards_space, i32),
        event_deck=np.zeros(max(gt.n_events, 1), i32),
        goals=np.zeros(max(gt.goals_revealed, 1), i32),
        goal_mark=np.zeros((max(gt.goals_revealed, 1), p), i32),
        goal_nmark=np.zeros(max(gt.goals_revealed, 1), i32),
        bonus_res=np.zeros(gt.n_loc, i32),
        bonus_n=np.zeros(gt.n_loc, i32),
        supply=np.zeros(N_RESOURCES, i32),
        flows=np.zeros((p, gt.n_flow, N_RESOURCES), i32),
        exhausted=np.zeros(p, i32),
        grey_total=np.zeros(p, i32),
        laureates=np.zeros(p, i32),
        laureates_holder=np.zeros(p, i32),
        markers_placed=np.zeros(p, i32),
        goal_round=np.zeros((max(gt.goals_revealed, 1), p), i32),
        goal_order=np.zeros((max(gt.goals_revealed, 1), p), i32),
        goal_paid=np.zeros((max(gt.goals_revealed, 1), p), i32),
        ves_lost=np.zeros(p, i32),
        placements=np.zeros((p, gt.n_loc), i32),
        hp_round=np.zeros((p, gt.max_rounds), i32),
        first_player=np.zeros(gt.max_rounds, i32),
        peak=np.zeros(N_RESOURCES, i32),
        shortfall=np.zeros(N_RESOURCES, i32),
        decisions=np.zeros(p, np.int64),
        scratch=np.zeros(max(n_ids, gt.n_events, gt.n_goals, gt.n_epi, 1), i32),
        scratch_hash=np.zeros(max(n_ids, gt.n_events, gt.n_goals, gt.n_epi, 1), np.uint64),
        final_hp=np.zeros(p, np.int64),
        win_share=np.zeros(p, np.float64),
        rank=np.zeros(p, np.int64),
        trace=np.zeros(max(trace_capacity, 1), np.int64),
        seating=Seating(
            player=np.arange(p, dtype=np.int64),
            policy=np.zeros(p, np.int64),
            label=np.zeros(p, np.int64),
            params=np.zeros((p, n_params), np.float64),
        ),
        workspace=Workspace(
            legal=np.zeros(gt.max_legal, np.int64),
            values=np.zeros(gt.max_legal, np.float64),
            hand_size=np.zeros(p, i32),
            observation=np.zeros(observation_size, np.int64),
            candidates=np.zeros(MAX_CANDIDATES, np.int64),
            candidate_score=np.zeros(MAX_CANDIDATES, np.float64),
        ),
        tallies=Tallies(
            offered=np.zeros((blocks, n_ids, gt.n_slots, n_prices), np.int64),
            bought=np.zeros((blocks, n_ids, gt.n_slots, n_prices), np.int64),
            discarded=np.zeros((blocks, n_ids), np.int64),
            acquired=np.zeros((blocks, n_ids, gt.max_rounds + 1), np.int64),
            completed=np.zeros((blocks, n_ids, gt.max_rounds + 1), np.int64),
            occupancy=np.zeros((blocks, gt.n_spots, gt.max_rounds, max_picks(gt)), np.int64),
        ),
    )


# Columns of the records, one array per field of vocabulary.PLAYER_RECORD (row = game_in_chunk *
# players + seat) and GAME_RECORD (row = game_in_chunk); "u8" masks are int64 bit patterns here
# (read as uint64 above the kernel)
PlayerRecords = NamedTuple("PlayerRecords", [(f.name, np.ndarray) for f in PLAYER_RECORD])
GameRecords = NamedTuple("GameRecords", [(f.name, np.ndarray) for f in GAME_RECORD])


def _allocate(cls, spec: list[tuple], n: int):
    arrays = {}
    for item in spec:
        name, kind = item[0], item[1]
        shape = (n,) + (item[2] if len(item) > 2 else ())
        dtype = np.int64 if kind == "u8" else np.dtype(kind)  # masks: int64 bit patterns
        arrays[name] = np.zeros(shape, dtype)
    return cls(**arrays)


def allocate_records(gt: GameTables, n_games: int) -> tuple[PlayerRecords, GameRecords]:
    """Preallocated record columns for n_games games of this player count."""
    pr = _allocate(PlayerRecords, player_record_dtype(gt.n_loc, gt.max_rounds, gt.n_goals), n_games * gt.players)
    gr = _allocate(
        GameRecords, game_record_dtype(gt.n_events, gt.goals_revealed_max, gt.max_rounds), n_games
    )
    return pr, gr
