"""Invariants of the game, checked at every step of kernel games replayed by the referee, and on
the kernel's final records.

`CheckingReader` is the referee's `TraceReader` with one addition: before every decision (setup
returns and combinations, every Phase 1 turn, automatic ones included) it checks the referee's
`GameState` with `state_violations`; `replay_checked` also checks the final, scored state. The
kernel's records (from `play_traced` and `play_chunk`) are checked by `record_violations`.
`tests/test_hypothesis_rules.py` reuses these checkers on perturbed game data.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from simcell.config.load import load_default_game
from simcell.config.model import GameDefinition
from simcell.vocabulary import (
    ATP,
    CARB,
    COMPLETED_TYPES,
    FLASK_GREY,
    FLASK_OWN,
    GOLGI_CARB,
    GOLGI_LIPID,
    GOLGI_NONE,
    LIPID,
    MIN_PLAYERS,
    MRNA,
    N_RESOURCES,
    ORG_GOLGI,
    ORG_ROUGH,
    ORG_SMOOTH,
    PROTEIN,
    SRC_GOAL_BONUS,
    SRC_EVENT,
    SRC_GOAL_MARKER,
    SRC_RECEPTOR_BONUS,
    flow_layout,
)
from simcell.referee import GameMeta, play_game
from simcell.referee.legal import markers_left
from simcell.referee.replay import TraceReader
from simcell.referee.state import (
    GAME_OVER,
    PHASE_ONE,
    SETUP_COMBO,
    SETUP_RETURN,
    GameState,
    LocationBonus,
    Vesicle,
    player_count_index,
)
from simcell.runner.games import play_chunk, play_traced

from .parity import with_board, with_rules

SEED = 20261207


class InvariantError(AssertionError):
    """A game invariant does not hold."""


# -- the state checker ---------------------------------------------------------------------------
def vesicle_cargo(v: Vesicle) -> list[int]:
    """What a vesicle carries, per resource (computed here, not with the referee's helper)."""
    out = [0] * N_RESOURCES
    out[PROTEIN if v.origin == ORG_ROUGH else LIPID] += v.load
    if v.golgi == GOLGI_CARB:
        out[CARB] += 1
    elif v.golgi == GOLGI_LIPID:
        out[LIPID] += 1
    return out


def _epigenetic_extra(state: GameState, seat: int, kind: str) -> int:
    card_id = state.seats[seat].epigenetic
    if card_id is None:
        return 0
    card = next(c for c in state.game.epigenetic if c.id == card_id)
    return sum(e.n for e in card.effects if e.kind == kind)


def state_violations(state: GameState) -> list[str]:
    """Every invariant of the referee's state that does not hold (empty when all hold)."""
    game, board, rules = state.game, state.game.board, state.game.rules
    players, phase = state.players, state.phase
    out: list[str] = []
    lay = state.layout
    placing = phase in (PHASE_ONE, GAME_OVER)  # flasks may be on the board

    # vesicles: where they are, what they carry, whose they are
    cargo = [[0] * N_RESOURCES for _ in range(players)]
    on_board = [0] * players
    if [len(b) for b in state.budding] != list(board.budding_locations):
        out.append(f"budding locations {[len(b) for b in state.budding]} != {board.budding_locations}")
    for org, locations in enumerate(state.budding):
        for i, v in enumerate(locations):
            if v is None:
                continue
            if not 0 <= v.owner < players:
                out.append(f"vesicle at ({org},{i}) has owner {v.owner}")
                continue
            on_board[v.owner] += 1
            for r, n in enumerate(vesicle_cargo(v)):
                cargo[v.owner][r] += n
            if v.load < 1:
                out.append(f"vesicle at ({org},{i}) has ER load {v.load}")
            if org in (ORG_ROUGH, ORG_SMOOTH) and (v.origin != org or v.golgi != GOLGI_NONE):
                out.append(f"vesicle at ({org},{i}) has origin {v.origin}, golgi {v.golgi}")
            if org == ORG_GOLGI and (
                v.origin not in (ORG_ROUGH, ORG_SMOOTH) or v.golgi not in (GOLGI_CARB, GOLGI_LIPID)
            ):
                out.append(f"vesicle at Golgi {i} has origin {v.origin}, golgi {v.golgi}")

    n_gain, n_spend_end = lay["n_gain_rows"], lay["n_spend_end"]
    for p in state.seats:
        s = p.seat
        # personal stock, and the flows that must add up to it
        for r in range(N_RESOURCES):
            if p.stock[r] < 0:
                out.append(f"seat {s} holds {p.stock[r]} of resource {r}")
            gains = sum(p.flows[i][r] for i in range(n_gain))
            spends = sum(p.flows[i][r] for i in range(n_gain, n_spend_end))
            if gains - spends != p.stock[r]:
                out.append(f"seat {s} resource {r}: gains {gains} - spends {spends} != stock {p.stock[r]}")
            net_cargo = (
                p.flows[lay["cargo_loaded"]][r] - p.flows[lay["cargo_returned"]][r]
                - p.flows[lay["cargo_lost"]][r]
            )
            if net_cargo != cargo[s][r]:
                out.append(f"seat {s} resource {r}: cargo flows {net_cargo} != cargo on board {cargo[s][r]}")
        if any(x < 0 for row in p.flows for x in row):
            out.append(f"seat {s} has a negative flow entry")
        # HP by source
        if sum(p.hp_by_source) != p.hp:
            out.append(f"seat {s}: HP by source {p.hp_by_source} does not add up to HP {p.hp}")
        if p.hp < 0:
            out.append(f"seat {s} has {p.hp} HP")
        for t, name in enumerate(COMPLETED_TYPES):
            want = sum(state.cards[c].hp for c in p.completed if state.cards[c].type == name)
            if p.hp_by_source[t] != want:
                out.append(f"seat {s}: {name} HP {p.hp_by_source[t]} != completed cards' HP {want}")
        firsts = sum(1 for on_card in state.goal_markers if on_card and on_card[0] == s)
        if p.hp_by_source[SRC_GOAL_MARKER] != board.first_marker_hp * firsts:
            out.append(f"seat {s}: goal_marker HP {p.hp_by_source[SRC_GOAL_MARKER]} but {firsts} first markers")
        if phase != GAME_OVER and (p.hp_by_source[SRC_GOAL_BONUS] or p.hp_by_source[SRC_RECEPTOR_BONUS]):
            out.append(f"seat {s} has end-of-game HP before the end")
        if any(h < 0 for h in p.hp_by_round):
            out.append(f"seat {s}: negative HP in hp_by_round {p.hp_by_round}")
        # disks: free + on the board = owned
        disks = board.vesicles_per_player + _epigenetic_extra(state, s, "extra_vesicle")
        if p.disks != disks:
            out.append(f"seat {s} owns {p.disks} disks, expected {disks}")
        if on_board[s] > p.disks or state.free_disks(s) + on_board[s] != p.disks:
            out.append(f"seat {s}: {state.free_disks(s)} free disks + {on_board[s]} on the board != {p.disks}")
        # goal markers: placed + left = owned
        markers = board.goal_markers_per_player + _epigenetic_extra(state, s, "extra_goal_marker")
        placed = sum(on_card.count(s) for on_card in state.goal_markers)
        if p.goal_markers != markers:
            out.append(f"seat {s} owns {p.goal_markers} goal markers, expected {markers}")
        if placed != p.goal_markers_placed or markers_left(state, s) < 0:
            out.append(f"seat {s}: {placed} markers on goal cards, {p.goal_markers_placed} placed")
        if placed + markers_left(state, s) != markers:
            out.append(f"seat {s}: {placed} placed + {markers_left(state, s)} left != {markers}")
        # flasks of this round
        if p.flasks_placed + p.flasks_exhausted_round > board.flasks(players):
            out.append(f"seat {s} placed {p.flasks_placed} and exhausted {p.flasks_exhausted_round}")
        if p.out and p.flasks_placed + p.flasks_exhausted_round != board.flasks(players):
            out.append(f"seat {s} is out holding an unplaced flask")
        if p.grey_placed > rules.grey_per_player:
            out.append(f"seat {s} placed {p.grey_placed} grey flasks this round")

    # spots: one flask per spot; the flasks on the board are the ones placed this round
    own_on, grey_on = Counter(), Counter()
    for li, loc in enumerate(board.locations):
        spots = state.spots[li]
        if len(spots) != len(loc.spots):
            out.append(f"location {loc.id} has {len(spots)} spots, expected {len(loc.spots)}")
        for i, occupant in enumerate(spots):
            if occupant is None:
                continue
            seat, flask = occupant
            if not placing:
                out.append(f"a flask on {loc.id} spot {i} during {phase}")
            if not 0 <= seat < players or flask not in (FLASK_OWN, FLASK_GREY):
                out.append(f"bad occupant {occupant} on {loc.id} spot {i}")
            (grey_on if flask == FLASK_GREY else own_on)[seat] += 1
            if loc.action == "card_area" and i < len(state.card_area) and state.card_area[i] is not None:
                out.append(f"Card Area slot {i} is occupied but still holds card {state.card_area[i]}")
        if loc.action not in ("collect", "card_area"):
            taken = [o is not None for o in spots]
            if taken != sorted(taken, reverse=True):
                out.append(f"identical spots of {loc.id} not taken lowest first: {spots}")
    for p in state.seats:
        if own_on[p.seat] != p.flasks_placed or grey_on[p.seat] != p.grey_placed:
            out.append(
                f"seat {p.seat}: {own_on[p.seat]} own / {grey_on[p.seat]} grey flasks on spots, "
                f"{p.flasks_placed} / {p.grey_placed} placed"
            )
    if not 0 <= state.grey_left <= board.grey_flasks or sum(grey_on.values()) != board.grey_flasks - state.grey_left:
        out.append(f"{sum(grey_on.values())} grey flasks on spots, {state.grey_left} left of {board.grey_flasks}")

    # limited supply: supply + stocks + cargo = component count, supply >= 0
    for r in range(N_RESOURCES):
        held = sum(p.stock[r] for p in state.seats) + sum(c[r] for c in cargo)
        if rules.supply_limited:
            supply = state.supply_left(r)
            if supply < 0 or supply + held != board.supply[r]:
                out.append(f"resource {r}: supply {supply} + held {held} != {board.supply[r]}")
            if state.peak_use[r] > board.supply[r]:
                out.append(f"resource {r}: peak use {state.peak_use[r]} > {board.supply[r]} components")
        elif state.supply_shortfall[r]:
            out.append(f"resource {r}: shortfall {state.supply_shortfall[r]} with an unlimited supply")
        if placing and state.peak_use[r] < held:
            out.append(f"resource {r}: peak use {state.peak_use[r]} < held now {held}")
        if state.supply_shortfall[r] < 0:
            out.append(f"resource {r}: negative shortfall")

    # cards: every card id of the game in exactly one place
    where: dict[int, list[str]] = {}

    def put(place: str, ids) -> None:
        for c in ids:
            where.setdefault(c, []).append(place)

    put("deck", state.deck)
    put("discard", state.discard)
    put("card area", [c for c in state.card_area if c is not None])
    put("removed", state.detox_removed)
    if phase == SETUP_RETURN:  # returned, not yet shuffled into the deck
        put("returned", state.returned_cards)
    for p in state.seats:
        put(f"hand {p.seat}", p.hand)
        put(f"completed {p.seat}", p.completed)
    for c in sorted(set(state.cards) | set(where)):
        places = where.get(c, [])
        if c not in state.cards or len(places) != 1:
            out.append(f"card {c} is in {places or 'no place'}")
    if len(state.card_area) != len(board.slot_prices):
        out.append(f"{len(state.card_area)} Card Area slots, expected {len(board.slot_prices)}")
    for p in state.seats:
        had = set(p.dealt if phase == SETUP_RETURN else p.kept) | set(p.bought)
        if not (p.hand | set(p.completed)) <= had:
            out.append(f"seat {p.seat} holds or completed cards it was never dealt nor bought")
        for c in list(p.hand) + p.completed:
            kind = state.cards[c].type if c in state.cards else None
            if kind == "additional_resource" and (c in p.completed or phase not in (SETUP_RETURN, SETUP_COMBO)):
                out.append(f"seat {p.seat} keeps Additional Resource card {c}")
        seen = set(p.dealt) | set(p.bought) | set(p.completed)
        if not seen <= state.visible:
            out.append(f"cards {sorted(seen - state.visible)} of seat {p.seat} are not visible")
    if not {c for c in state.card_area if c is not None} <= state.visible:
        out.append("a Card Area card is not visible")

    # Card Area: an empty slot that was not bought from this round means the deck ran dry, and
    # such slots come after every other slot (refresh slides left, then fills left to right)
    area_spots = next(
        (state.spots[li] for li, loc in enumerate(board.locations) if loc.action == "card_area"), []
    )
    dry = [
        i for i, c in enumerate(state.card_area)
        if c is None and not (i < len(area_spots) and area_spots[i] is not None)
    ]
    if dry and (state.deck or dry != list(range(dry[0], len(state.card_area)))):
        out.append(f"Card Area {state.card_area} has empty slots {dry} with {len(state.deck)} cards in the deck")

    # round effects: a location bonus is claimed exactly when its location has a flask on it;
    # the First Player Marker moves only by Laureates (marker mode), to the seat placed there
    bonus_locations = [b.location for b in state.location_bonuses]
    if len(set(bonus_locations)) != len(bonus_locations) or state.card_discount < 0:
        out.append(f"location bonuses at {bonus_locations}, card discount {state.card_discount}")
    for b in state.location_bonuses:
        occupied = placing and any(o is not None for o in state.spots[b.location])
        if b.claimed != occupied or b.n < 0:
            out.append(f"location bonus at {b.location} claimed {b.claimed}, location occupied {occupied}")
    if phase == PHASE_ONE:
        holder = state.round_start_marker
        for li, loc in enumerate(board.locations):
            if loc.action == "laureates" and rules.turn_order == "marker":
                holder = next((o[0] for o in state.spots[li] if o is not None), holder)
        if state.marker != holder or state.first_player[-1:] != [state.round_start_marker]:
            out.append(f"marker with seat {state.marker}, expected {holder}")

    # events and goals
    events = state.events_set_aside + state.event_deck + state.events_revealed
    if sorted(events) != sorted(e.id for e in game.events):
        out.append(f"events set aside / deck / revealed {events} are not the event ids")
    rounds_done = state.rounds if phase == GAME_OVER else max(state.round - 1, 0)
    if placing and len(state.events_revealed) != min(state.round, state.rounds) - 1:
        out.append(f"{len(state.events_revealed)} events revealed in round {state.round}")
    if len(state.first_player) != (state.round if placing else 0):
        out.append(f"first_player {state.first_player} in round {state.round}")
    for p in state.seats:
        if len(p.hp_by_round) != rounds_done:
            out.append(f"seat {p.seat}: hp_by_round {p.hp_by_round} after {rounds_done} rounds")
    pc = player_count_index(players)
    if len(state.goals_in_play) != board.goals_revealed[pc] or len(set(state.goals_in_play)) != len(state.goals_in_play):
        out.append(f"goals in play {state.goals_in_play}")
    if len(state.goal_markers) != len(state.goals_in_play):
        out.append("goal markers and goals in play differ in length")
    for gi, on_card in enumerate(state.goal_markers):
        if len(on_card) > board.max_markers_per_goal or len(set(on_card)) != len(on_card):
            out.append(f"goal {gi} holds markers {on_card}")
    if not 0 <= state.marker < players:
        out.append(f"marker holder {state.marker}")
    if state.to_move is not None and (
        not 0 <= state.to_move < players or (phase == PHASE_ONE and state.seats[state.to_move].out)
    ):
        out.append(f"seat {state.to_move} to move")
    return out


def check_state(state: GameState) -> None:
    bad = state_violations(state)
    if bad:
        where = f"game {state.meta.game}, round {state.round}, {state.phase}, seat {state.to_move}"
        raise InvariantError(f"{where}: " + "; ".join(bad))


class CheckingReader(TraceReader):
    """A TraceReader that checks the state's invariants before every decision it reads."""

    def __init__(self, game: GameDefinition, trace: list[int], meta: GameMeta) -> None:
        super().__init__(game, trace, meta)
        self.checks = 0

    def decide(self, state: GameState, legal: list[int]) -> int:
        check_state(state)
        self.checks += 1
        return super().decide(state, legal)


def replay_checked(game: GameDefinition, players: int, trace: Sequence[int], meta: GameMeta) -> tuple[GameState, int]:
    """Replay a kernel trace checking the invariants at every step and at the end; returns the
    final state and the number of states checked."""
    reader = CheckingReader(game, [int(x) for x in trace], meta)
    state = play_game(game, players, meta, reader)
    reader.expect_end(state)
    check_state(state)
    return state, reader.checks + 1


# -- the record checker --------------------------------------------------------------------------
def _popcount(mask) -> int:
    return bin(int(mask)).count("1")


def _bits(mask) -> list[int]:
    m = int(mask)
    return [i for i in range(64) if m >> i & 1]


def record_violations(game: GameDefinition, players: int, prec: np.ndarray, grec: np.ndarray) -> list[str]:
    """Invariants of the kernel's records of len(grec) games (prec: game-major, seat-minor)."""
    out: list[str] = []
    board, rules = game.board, game.rules
    lay = flow_layout(len(board.locations))
    n_gain, n_spend_end = lay["n_gain_rows"], lay["n_spend_end"]
    cards = {c.id: c for c in game.cards}
    rounds = game.rounds(players)
    laureates = [i for i, loc in enumerate(board.locations) if loc.action == "laureates"]
    goals = board.goals_revealed[players - MIN_PLAYERS]
    extra_markers = max(
        (sum(e.n for e in c.effects if e.kind == "extra_goal_marker") for c in game.epigenetic), default=0
    ) if rules.epigenetic else 0
    if len(prec) != len(grec) * players:
        return [f"{len(prec)} player records for {len(grec)} games of {players} players"]
    for gi, g in enumerate(grec):
        rows = prec[gi * players : (gi + 1) * players]
        tag = f"game {int(g['game'])}"
        hp = rows["final_hp"].astype(int)
        if list(rows["seat"]) != list(range(players)) or int(g["players"]) != players:
            out.append(f"{tag}: seats {list(rows['seat'])}")
        if (rows["hp_by_source"].sum(axis=1) != hp).any():
            out.append(f"{tag}: hp_by_source sums {rows['hp_by_source'].sum(axis=1)} != final_hp {hp}")
        if (hp < 0).any():
            out.append(f"{tag}: negative final HP {hp}")
        flows = rows["flows"].astype(int)
        balance = flows[:, :n_gain].sum(axis=1) - flows[:, n_gain:n_spend_end].sum(axis=1)
        if (balance != rows["stock"]).any():
            out.append(f"{tag}: flows {balance.tolist()} != stock {rows['stock'].tolist()}")
        if (rows["stock"] < 0).any() or (flows < 0).any():
            out.append(f"{tag}: negative stock or flow")
        net_cargo = flows[:, lay["cargo_loaded"]] - flows[:, lay["cargo_returned"]] - flows[:, lay["cargo_lost"]]
        if (net_cargo < 0).any():
            out.append(f"{tag}: negative cargo left {net_cargo.tolist()}")
        for s in range(players):
            if rows["vesicles_left"][s] == 0 and net_cargo[s].any():
                out.append(f"{tag} seat {s}: cargo {net_cargo[s].tolist()} left on no vesicle")
        # winner, shares, ranks, tie
        best = hp.max()
        k = int((hp == best).sum())
        share = rows["win_share"]
        if not np.isclose(share.sum(), 1.0):
            out.append(f"{tag}: win shares {share.tolist()} sum to {share.sum()}")
        if not np.allclose(share, np.where(hp == best, 1.0 / k, 0.0)):
            out.append(f"{tag}: win shares {share.tolist()} for HP {hp.tolist()}")
        if bool(g["tie"]) != (k > 1):
            out.append(f"{tag}: tie {bool(g['tie'])} with {k} players on top")
        want_rank = [1 + int((hp > h).sum()) for h in hp]
        if rows["rank"].tolist() != want_rank:
            out.append(f"{tag}: ranks {rows['rank'].tolist()} for HP {hp.tolist()}")
        # per round, and the final round before end-of-game bonuses
        if int(g["rounds"]) != rounds:
            out.append(f"{tag}: {int(g['rounds'])} rounds, expected {rounds}")
        hbr = rows["hp_by_round"]
        pre_bonus = hp - rows["hp_by_source"][:, SRC_GOAL_BONUS] - rows["hp_by_source"][:, SRC_RECEPTOR_BONUS]
        if (hbr[:, rounds - 1] != pre_bonus).any() or (hbr[:, rounds:] != -1).any() or (hbr[:, :rounds] < 0).any():
            out.append(f"{tag}: hp_by_round {hbr.tolist()} vs final HP before bonuses {pre_bonus.tolist()}")
        # cards
        completed_seen = 0
        kept_seen = 0
        for s, row in enumerate(rows):
            done = _bits(row["completed_mask"])
            if any(c not in cards for c in done):
                out.append(f"{tag} seat {s}: completed cards {done} not all in the game")
                done = [c for c in done if c in cards]
            if int(row["completed_by_type"].sum()) != len(done):
                out.append(f"{tag} seat {s}: completed_by_type {row['completed_by_type'].tolist()} vs {len(done)} cards")
            for t, name in enumerate(COMPLETED_TYPES):
                of_type = [c for c in done if cards[c].type == name]
                if int(row["completed_by_type"][t]) != len(of_type):
                    out.append(f"{tag} seat {s}: {name} count {int(row['completed_by_type'][t])} vs mask")
                if int(row["hp_by_source"][t]) != sum(cards[c].hp for c in of_type):
                    out.append(f"{tag} seat {s}: {name} HP {int(row['hp_by_source'][t])} vs completed cards")
            if int(row["completed_mask"]) & ~(int(row["kept_mask"]) | int(row["bought_mask"])):
                out.append(f"{tag} seat {s}: completed cards neither kept nor bought")
            if int(row["kept_mask"]) & ~int(row["dealt_mask"]) or _popcount(row["dealt_mask"]) != board.cards_dealt:
                out.append(f"{tag} seat {s}: dealt/kept masks")
            if _popcount(row["kept_mask"]) != board.cards_dealt - 1:
                out.append(f"{tag} seat {s}: kept {_popcount(row['kept_mask'])} cards")
            if completed_seen & int(row["completed_mask"]) or kept_seen & int(row["kept_mask"]):
                out.append(f"{tag} seat {s}: a card completed or kept by two players")
            completed_seen |= int(row["completed_mask"])
            kept_seen |= int(row["kept_mask"])
            # flasks: every own flask of every round is placed or exhausted
            own = int(row["placements_by_location"].sum()) - int(row["grey_used"]) + int(row["flasks_exhausted"])
            if own != board.flasks(players) * rounds:
                out.append(f"{tag} seat {s}: {own} own placements + exhausts, expected {board.flasks(players) * rounds}")
            if int(row["grey_used"]) > rules.grey_per_player * rounds:
                out.append(f"{tag} seat {s}: {int(row['grey_used'])} grey flasks")
            if laureates and int(row["laureates_taken"]) != int(row["placements_by_location"][laureates[0]]):
                out.append(f"{tag} seat {s}: laureates_taken vs placements")
            if row["laureates_as_holder"] > row["laureates_taken"]:
                out.append(f"{tag} seat {s}: laureates_as_holder > laureates_taken")
            if row["goal_markers_placed"] > min(board.goal_markers_per_player + extra_markers, goals):
                out.append(f"{tag} seat {s}: {int(row['goal_markers_placed'])} goal markers placed")
            firsts, rest = divmod(int(row["hp_by_source"][SRC_GOAL_MARKER]), max(board.first_marker_hp, 1))
            if rest or firsts > row["goal_markers_placed"]:
                out.append(f"{tag} seat {s}: goal_marker HP {int(row['hp_by_source'][SRC_GOAL_MARKER])}")
        if int(rows["goal_markers_placed"].sum()) > board.max_markers_per_goal * goals:
            out.append(f"{tag}: {int(rows['goal_markers_placed'].sum())} goal markers on {goals} goals")
        if (completed_seen | kept_seen) & ~int(g["visible_mask"]):
            out.append(f"{tag}: completed or kept cards not visible")
        # supply
        total = rows["stock"].astype(int).sum(axis=0) + net_cargo.sum(axis=0)
        if rules.supply_limited:
            supply = np.array(board.supply)
            if (total > supply).any() or (g["peak_use"] > supply).any():
                out.append(f"{tag}: held {total.tolist()} / peak {g['peak_use'].tolist()} > supply {list(supply)}")
        elif g["supply_shortfall"].any():
            out.append(f"{tag}: shortfall {g['supply_shortfall'].tolist()} with an unlimited supply")
        if (g["peak_use"] < total).any():
            out.append(f"{tag}: peak use {g['peak_use'].tolist()} < held at the end {total.tolist()}")
        fp = g["first_player"]
        if not ((fp[:rounds] >= 0) & (fp[:rounds] < players)).all() or (fp[rounds:] != -1).any():
            out.append(f"{tag}: first_player {fp.tolist()}")
        revealed = [int(e) for e in g["event_order"] if e >= 0]
        removed = _bits(g["events_removed"])
        if len(revealed) != rounds - 1 or set(revealed) & set(removed) or len(set(revealed)) != len(revealed):
            out.append(f"{tag}: events revealed {revealed}, removed {removed}")
        if len(removed) != board.events_set_aside[players - MIN_PLAYERS]:
            out.append(f"{tag}: {len(removed)} events removed")
    return out


def check_traced_game(game: GameDefinition, players: int, seed: int, g: int) -> int:
    """Play kernel game g with its trace, replay it checking every step, check its records.

    Returns the number of states checked; raises InvariantError (or RefereeError)."""
    traced = play_traced(game, players, seed, g)
    meta = GameMeta(game=g, deal=g, rotation=0, seat_player=tuple(range(players)), seat_policy=(0,) * players)
    _, checks = replay_checked(game, players, traced.trace, meta)
    bad = record_violations(game, players, traced.players, traced.game)
    if bad:
        raise InvariantError(f"{players}p game {g} records: " + "; ".join(bad[:10]))
    return checks


# -- the games -----------------------------------------------------------------------------------
BASE = load_default_game()
VARIANTS = {
    "default": BASE,
    "epigenetic": with_rules(BASE, epigenetic=True),
    "limited": with_rules(BASE, supply_limited=True),
    "scarce-epigenetic": with_rules(
        with_board(BASE, supply=(6, 5, 4, 6, 20)), supply_limited=True, epigenetic=True
    ),
    "all-options": with_rules(
        BASE, epigenetic=True, supply_limited=True, grey_per_player=2, turn_order="rotate",
        laureates_holder_may_take=False, two_player_remove_detox=True,
    ),
    "seat-switches": with_rules(BASE, placement_order="snake_pass", laureates_once_each=True),
    # displacement everywhere, a deck that runs dry (reshuffles, empty slots), two grey flasks
    "tight-small-deck": with_rules(
        with_board(dataclasses.replace(BASE, cards=BASE.cards[:24]), budding_locations=(1, 1, 1)),
        grey_per_player=2,
    ),
}
STEP_GAMES = 12  # per variant and player count: 7 x 4 x 12 = 336 games checked step by step
RECORD_GAMES = 150  # per variant and player count, kernel records only
CASES = [(name, p) for name in VARIANTS for p in (2, 3, 4, 5)]


@pytest.mark.parametrize(("name", "players"), CASES, ids=[f"{n}-{p}p" for n, p in CASES])
def test_invariants_hold_at_every_step(name: str, players: int) -> None:
    game = VARIANTS[name]
    states = sum(check_traced_game(game, players, SEED, g) for g in range(STEP_GAMES))
    # every game had its steps checked: at least one decision per seat and round
    assert states > STEP_GAMES * game.rounds(players) * players


@pytest.mark.parametrize(("name", "players"), CASES, ids=[f"{n}-{p}p" for n, p in CASES])
def test_kernel_records_hold_invariants(name: str, players: int) -> None:
    game = VARIANTS[name]
    chunk = play_chunk(game, players, SEED + 1, 0, RECORD_GAMES)
    bad = record_violations(game, players, chunk.players, chunk.games)
    assert not bad, f"{len(bad)} violations:\n" + "\n".join(bad[:10])


# -- the checkers can fail ----------------------------------------------------------------------
class SnapshotReader(CheckingReader):
    """Keeps a deep copy of the first Phase 1 state, from round `after` on, with a flask on a
    spot, a vesicle on the board and a goal marker placed: a rich state to corrupt."""

    def __init__(self, game, trace, meta, after: int) -> None:
        super().__init__(game, trace, meta)
        self.after = after
        self.snapshot: GameState | None = None

    def decide(self, state: GameState, legal: list[int]) -> int:
        if (
            self.snapshot is None
            and state.phase == PHASE_ONE
            and state.round >= self.after
            and any(o is not None for spots in state.spots for o in spots)
            and state.vesicles()
            and any(state.goal_markers)
        ):
            self.snapshot = copy.deepcopy(state)
        return super().decide(state, legal)


def _snapshot() -> GameState:
    game = VARIANTS["all-options"]
    for g in range(50):
        traced = play_traced(game, 4, SEED, g)
        meta = GameMeta(game=g, deal=g, seat_player=(0, 1, 2, 3), seat_policy=(0,) * 4)
        reader = SnapshotReader(game, [int(x) for x in traced.trace], meta, after=6)
        play_game(game, 4, meta, reader)
        if reader.snapshot is not None:
            return reader.snapshot
    raise AssertionError("no rich mid-game state in 50 games")


def _row(state: GameState, kind: str) -> int:
    return state.layout[kind]


def _extra_atp(state: GameState) -> None:
    state.seats[0].stock[ATP] += 1


def _negative_stock(state: GameState) -> None:
    p = state.seats[1]
    take = p.stock[MRNA] + 1
    p.stock[MRNA] -= take
    p.flows[_row(state, "spend_discard_down")][MRNA] += take  # the flows still balance


def _card_twice(state: GameState) -> None:
    state.discard.append(state.deck[0])


def _card_lost(state: GameState) -> None:
    state.deck.pop()


def _card_in_two_hands(state: GameState) -> None:
    card = next(iter(sorted(state.seats[0].hand | set(state.deck))))
    state.seats[1].hand.add(card)
    state.seats[1].bought.append(card)


def _two_flasks_on_a_spot(state: GameState) -> None:
    li, i = next(
        (li, i) for li, spots in enumerate(state.spots) for i, o in enumerate(spots) if o is not None
    )
    seat, _ = state.spots[li][i]
    other = (seat + 1) % state.players
    state.spots[li][i] = (other, FLASK_OWN)  # a second flask pushed the first one off
    state.seats[other].flasks_placed += 1


def _negative_hp(state: GameState) -> None:
    p = state.seats[2]
    p.hp_by_source[SRC_EVENT] -= p.hp + 1


def _cargo_grows(state: GameState) -> None:
    state.vesicles()[0][2].load += 1


def _supply_overdrawn(state: GameState) -> None:
    p = state.seats[0]
    p.stock[CARB] += 40
    p.flows[_row(state, "gain_event")][CARB] += 40


def _disk_conjured(state: GameState) -> None:
    seat = state.vesicles()[0][2].owner
    state.seats[seat].disks += 1


def _extra_vesicles(state: GameState) -> None:
    """Every budding location holds a vesicle of seat 3 (cargo booked): more than it owns."""
    seat = 3
    lay = state.layout
    for org, locations in enumerate(state.budding):
        for i, v in enumerate(locations):
            if v is not None:
                for r, n in enumerate(vesicle_cargo(v)):  # the booking moves with the disk
                    state.seats[v.owner].flows[lay["cargo_loaded"]][r] -= n
            else:
                origin = org if org != ORG_GOLGI else ORG_ROUGH
                golgi = GOLGI_CARB if org == ORG_GOLGI else GOLGI_NONE
                v = locations[i] = Vesicle(owner=seat, origin=origin, load=1, golgi=golgi)
            v.owner = seat
            for r, n in enumerate(vesicle_cargo(v)):
                state.seats[seat].flows[lay["cargo_loaded"]][r] += n


def _goal_marker_unbooked(state: GameState) -> None:
    gi = next(gi for gi, on_card in enumerate(state.goal_markers) if len(on_card) < 2)
    seat = next(s for s in range(state.players) if s not in state.goal_markers[gi])
    state.goal_markers[gi].append(seat)


def _slot_emptied(state: GameState) -> None:
    slot = max(i for i, c in enumerate(state.card_area) if c is not None)
    state.discard.append(state.card_area[slot])
    state.card_area[slot] = None
    assert state.deck


def _bonus_claimed_unplaced(state: GameState) -> None:
    li = next(li for li, spots in enumerate(state.spots) if all(o is None for o in spots))
    state.location_bonuses.append(LocationBonus(li, ATP, 1, claimed=True))


def _marker_moved(state: GameState) -> None:
    state.marker = (state.marker + 1) % state.players


CORRUPTIONS = {
    "extra-stock": (_extra_atp, "gains .* != stock"),
    "negative-stock": (_negative_stock, "holds -1 of resource"),
    "card-in-two-places": (_card_twice, r"card \d+ is in \['deck', 'discard'\]"),
    "card-lost": (_card_lost, "is in no place"),
    "card-in-two-hands": (_card_in_two_hands, r"is in \[.*'hand 1'"),
    "two-flasks-on-a-spot": (_two_flasks_on_a_spot, "flasks on spots"),
    "negative-hp": (_negative_hp, "seat 2 has -1 HP"),
    "cargo-grows": (_cargo_grows, "cargo flows .* != cargo on board"),
    "supply-overdrawn": (_supply_overdrawn, "supply -?\\d+ \\+ held"),
    "disk-conjured": (_disk_conjured, "disks, expected"),
    "too-many-vesicles": (_extra_vesicles, "seat 3: -\\d+ free disks \\+"),
    "goal-marker-unbooked": (_goal_marker_unbooked, "markers on goal cards"),
    "slot-emptied": (_slot_emptied, r"has empty slots \[\d\] with \d+ cards in the deck"),
    "bonus-claimed-unplaced": (_bonus_claimed_unplaced, "claimed True, location occupied False"),
    "marker-moved": (_marker_moved, "marker with seat"),
}


@pytest.fixture(scope="module")
def snapshot() -> GameState:
    return _snapshot()


def test_snapshot_is_clean(snapshot: GameState) -> None:
    assert state_violations(snapshot) == []


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_state_checker_catches(snapshot: GameState, corruption: str) -> None:
    corrupt, message = CORRUPTIONS[corruption]
    state = copy.deepcopy(snapshot)
    corrupt(state)
    with pytest.raises(InvariantError, match=message):
        check_state(state)


def test_checking_reader_checks_before_each_decision(monkeypatch) -> None:
    """A corruption applied by a (test-local) broken rule is caught at the next decision."""
    import simcell.referee.play as play

    real_apply = play.apply
    calls = Counter()

    def broken_apply(state, code, **kw):
        real_apply(state, code, **kw)
        calls["n"] += 1
        if calls["n"] == 30:  # a rule bug: one ATP appears from nowhere, unbooked
            state.seats[state.to_move or 0].stock[ATP] += 1

    monkeypatch.setattr(play, "apply", broken_apply)
    with pytest.raises(InvariantError, match="gains .* != stock"):
        check_traced_game(BASE, 3, SEED, 0)


RECORD_CORRUPTIONS = {
    "final-hp": (lambda p, g: p["final_hp"].__setitem__(0, p["final_hp"][0] + 1), "hp_by_source sums"),
    "flows": (lambda p, g: p["stock"].__setitem__((1, ATP), p["stock"][1][ATP] + 1), r"flows .* != stock"),
    "win-share": (lambda p, g: p["win_share"].__setitem__(0, p["win_share"][0] + 0.5), "win shares"),
    "rank": (lambda p, g: p["rank"].__setitem__(2, p["rank"][2] + 1), "ranks"),
    "tie": (lambda p, g: g["tie"].__setitem__(0, not g["tie"][0]), "tie"),
    "hp-by-round": (lambda p, g: p["hp_by_round"].__setitem__((1, 3), -1), "hp_by_round"),
    "completed-card": (
        lambda p, g: p["completed_mask"].__setitem__(0, int(p["completed_mask"][0]) | 1 << 63),
        "not all in the game",
    ),
    "exhausts": (lambda p, g: p["flasks_exhausted"].__setitem__(2, p["flasks_exhausted"][2] + 1), "own placements"),
}


@pytest.mark.parametrize("corruption", list(RECORD_CORRUPTIONS))
def test_record_checker_catches(corruption: str) -> None:
    game = VARIANTS["limited"]
    chunk = play_chunk(game, 3, SEED, 0, 4)
    assert record_violations(game, 3, chunk.players, chunk.games) == []
    corrupt, message = RECORD_CORRUPTIONS[corruption]
    prec, grec = chunk.players.copy(), chunk.games.copy()
    corrupt(prec, grec)
    bad = record_violations(game, 3, prec, grec)
    assert any(re.search(message, b) for b in bad), bad
