"""The resolved game definition as the flat arrays the kernel consumes (`GameTables`), for one
player count. The only bridge from the config layer to the numba layer."""

from __future__ import annotations

import numpy as np

from simcell.config.model import GameDefinition
from simcell.vocabulary import (
    CARB,
    CARD_TYPES,
    COMPLETED_TYPES,
    CP_A_EXTRA,
    CP_A_N,
    CP_A_RES,
    CP_B_N,
    CP_B_RES,
    CP_ER_LOAD,
    CP_ORIGIN,
    CP_PARTNER,
    CP_PARTNER_BONUS,
    CP_VESICLE,
    EVENT_EFFECTS,
    EXHAUST_RESOURCES,
    GOAL_CRITERIA,
    GOLGI_RESOURCES,
    HP_IF_CONDITIONS,
    LEGAL_SLACK,
    LIPID,
    LOCATION_ACTIONS,
    MAX_VALUED,
    MIN_PLAYERS,
    MRNA,
    N_CARD_PLAN,
    N_RESOURCES,
    ORG_ROUGH,
    ORG_SMOOTH,
    PLACEMENT_ORDERS,
    PROTEIN,
    RECEPTOR_MATCH,
    RESOURCES,
    SMOOTH_ER_TYPES,
    TYPE_GROUPS,
    VESICLE_TYPES,
    flow_layout,
)
from simcell.kernel.state import GameTables


def type_bits(name: str | None) -> int:
    """Bit set over COMPLETED_TYPES of a completed type or group name."""
    if name is None:
        return 0
    members = TYPE_GROUPS.get(name, (name,))
    bits = 0
    for t in members:
        bits |= 1 << COMPLETED_TYPES.index(t)
    return bits


def max_rounds(game: GameDefinition) -> int:
    """Width of per-round records: the most rounds at any player count."""
    return max(game.rounds(p) for p in range(MIN_PLAYERS, MIN_PLAYERS + len(game.board.events_set_aside)))


def card_route_tables(game: GameDefinition, n_ids: int, type_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GameTables.card_plan and card_match (vocabulary.CP_*): each card's route to completion as the
    heuristic evaluator reads it, without a branch on the card's type."""
    plan = np.zeros((n_ids, N_CARD_PLAN), np.int32)
    match = np.zeros(n_ids, np.int64)
    hormone_of = {h: r for r, h in RECEPTOR_MATCH.items()}
    for c in game.cards:
        row = plan[c.id]
        if c.type == "enzyme":
            row[CP_A_RES], row[CP_A_N], row[CP_A_EXTRA] = PROTEIN, c.protein, 1
            row[CP_B_RES], row[CP_B_N] = CARB, c.carb
        elif c.type in VESICLE_TYPES:
            smooth = c.type in SMOOTH_ER_TYPES
            row[CP_VESICLE] = 1
            row[CP_A_RES], row[CP_A_N] = (CARB if c.golgi == "carb" else LIPID), 1
            row[CP_ORIGIN] = ORG_SMOOTH if smooth else ORG_ROUGH
            row[CP_ER_LOAD] = c.lipid if smooth else c.protein
            row[CP_B_RES], row[CP_B_N] = (LIPID if smooth else MRNA), row[CP_ER_LOAD]
        if c.type in RECEPTOR_MATCH:
            row[CP_PARTNER] = CARD_TYPES.index(RECEPTOR_MATCH[c.type])
            row[CP_PARTNER_BONUS] = c.bonus_per_match
        if c.type in hormone_of:
            match[c.id] = type_mask[CARD_TYPES.index(hormone_of[c.type])]
    return plan, match


def max_legal_actions(game: GameDefinition, players: int) -> int:
    """GameTables.max_legal: a bound on the legal actions of any one decision (every
    own-flask placement the board allows, twice for the grey copies, plus the exhausts or the
    pass; or a setup decision's), plus LEGAL_SLACK entries of slack past it, which
    legal._add_if and the softmax rely on."""
    b, r = game.board, game.rules
    n_collect = sum(len(loc.spots) for loc in b.locations if loc.action == "collect")
    n_slots = len(b.slot_prices)
    n_ids = max(c.id for c in game.cards) + 1
    rb, sb, gb = (int(x) for x in b.budding_locations)
    per_flask = (
        n_collect + r.max_batch + n_slots + n_ids + r.max_batch * rb + r.max_batch * sb
        + (rb + sb) * 2 * gb + gb * n_ids + n_ids + 1 + b.goals_revealed[players - MIN_PLAYERS]
    )
    return max(2 * per_flask + 4, b.cards_dealt, len(b.combos)) + LEGAL_SLACK


def build_tables(game: GameDefinition, players: int) -> GameTables:
    """GameTables for `players` players."""
    b, r = game.board, game.rules
    pi = players - MIN_PLAYERS
    i32 = np.int32
    n_loc = len(b.locations)
    loc_action = np.array([LOCATION_ACTIONS.index(loc.action) for loc in b.locations], i32)
    loc_n_spots = np.array([len(loc.spots) for loc in b.locations], i32)
    loc_first_spot = np.concatenate([[0], np.cumsum(loc_n_spots)[:-1]]).astype(i32)
    n_spots = int(loc_n_spots.sum())
    spot_cost = np.array([s.cost for loc in b.locations for s in loc.spots], i32).reshape(n_spots, 5)
    spot_gain = np.array([s.gain for loc in b.locations for s in loc.spots], i32).reshape(n_spots, 5)

    n_ids = max(c.id for c in game.cards) + 1
    card_in_game = np.zeros(n_ids, np.bool_)
    fields = {k: np.zeros(n_ids, i32) for k in ("type", "atp", "protein", "carb", "lipid", "hp", "bonus")}
    card_golgi = np.full(n_ids, -1, i32)
    card_gain = np.zeros((n_ids, N_RESOURCES), i32)
    type_mask = np.zeros(len(CARD_TYPES), np.int64)
    for c in game.cards:
        card_in_game[c.id] = True
        type_mask[CARD_TYPES.index(c.type)] |= np.int64(1) << np.int64(c.id)
        fields["type"][c.id] = CARD_TYPES.index(c.type)
        fields["atp"][c.id] = c.atp
        fields["protein"][c.id] = c.protein
        fields["carb"][c.id] = c.carb
        fields["lipid"][c.id] = c.lipid
        fields["hp"][c.id] = c.hp
        fields["bonus"][c.id] = c.bonus_per_match
        card_gain[c.id] = c.gain
        if c.golgi is not None:
            card_golgi[c.id] = GOLGI_RESOURCES.index(c.golgi)

    vesicle_mask = 0
    for t in VESICLE_TYPES:
        vesicle_mask |= int(type_mask[CARD_TYPES.index(t)])
    if vesicle_mask >= 2**63:  # bit 63 as an int64 bit pattern
        vesicle_mask -= 2**64

    card_plan, card_match = card_route_tables(game, n_ids, type_mask)

    loc_index = {loc.id: i for i, loc in enumerate(b.locations)}
    effects = [(ei, e) for ei, ev in enumerate(game.events) for e in ev.effects]
    ev_count = np.array([len(ev.effects) for ev in game.events], i32)
    ev_first = np.concatenate([[0], np.cumsum(ev_count)[:-1]]).astype(i32) if len(ev_count) else np.zeros(0, i32)
    n_eff = len(effects)

    def eff_array(fn) -> np.ndarray:
        return np.array([fn(e) for _, e in effects], i32) if n_eff else np.zeros(0, i32)

    n_epi = len(game.epigenetic)
    epi_yield = np.zeros((max(n_epi, 1), n_loc), i32)
    epi_discount = np.zeros((max(n_epi, 1), len(COMPLETED_TYPES)), i32)
    epi_vesicles = np.zeros(max(n_epi, 1), i32)
    epi_markers = np.zeros(max(n_epi, 1), i32)
    epi_start = np.zeros((max(n_epi, 1), N_RESOURCES), i32)
    for k, card in enumerate(game.epigenetic):
        for e in card.effects:
            if e.kind == "yield_bonus":
                epi_yield[k, loc_index[e.location]] += e.n
            elif e.kind == "cost_discount":
                bits = type_bits(e.type)
                for t in range(len(COMPLETED_TYPES)):
                    if bits >> t & 1:
                        epi_discount[k, t] += e.a
            elif e.kind == "extra_vesicle":
                epi_vesicles[k] += e.n
            elif e.kind == "extra_goal_marker":
                epi_markers[k] += e.n
            elif e.kind == "start_bonus":
                epi_start[k, RESOURCES.index(e.resource)] += e.n

    layout = flow_layout(n_loc)
    budding = np.array(b.budding_locations, i32)
    n_slots = len(b.slot_prices)
    n_collect = int(sum(len(loc.spots) for loc in b.locations if loc.action == "collect"))
    n_fixed_pad = -(-(n_collect + len(EXHAUST_RESOURCES)) // LEGAL_SLACK) * LEGAL_SLACK
    loc_first_collect = np.full(n_loc, -1, i32)
    fixed_net = np.zeros((5, n_fixed_pad), np.float64)
    k = 0
    for li, loc in enumerate(b.locations):
        if loc.action == "collect":
            loc_first_collect[li] = k
            for j in range(len(loc.spots)):
                spot = loc_first_spot[li] + j
                fixed_net[:, k] = spot_gain[spot] - spot_cost[spot]
                k += 1
    for i, res in enumerate(EXHAUST_RESOURCES):
        fixed_net[res, n_collect + i] = 1.0
    max_legal = max_legal_actions(game, players)
    if max_legal > MAX_VALUED:  # config/checks.py names the setting; this guards any other path
        raise ValueError(f"max_legal {max_legal} exceeds the kernel's MAX_VALUED {MAX_VALUED}")

    return GameTables(
        players=players,
        rounds=game.rounds(players),
        max_rounds=max_rounds(game),
        n_ids=n_ids,
        n_loc=n_loc,
        n_spots=n_spots,
        n_slots=n_slots,
        n_events=len(game.events),
        events_set_aside=b.events_set_aside[pi],
        goals_revealed=b.goals_revealed[pi],
        goals_revealed_max=max(b.goals_revealed),
        n_goals=len(game.goals),
        n_epi=n_epi,
        max_batch=r.max_batch,
        flasks=b.flasks_per_player[pi],
        grey_flasks=b.grey_flasks,
        grey_per_player=r.grey_per_player,
        vesicles=b.vesicles_per_player,
        markers=b.goal_markers_per_player,
        first_marker_hp=np.array([game.first_marker_hp(k) for k in range(max(b.goals_revealed[pi], 1))], i32),
        max_markers_per_goal=b.max_markers_per_goal,
        cards_dealt=b.cards_dealt,
        detox_removed=b.two_player_detox_removed if (players == 2 and r.two_player_remove_detox) else 0,
        epigenetic=r.epigenetic,
        limited=r.supply_limited,
        rotate=r.turn_order == "rotate",
        holder_may_take=r.laureates_holder_may_take,
        placement_order=PLACEMENT_ORDERS.index(r.placement_order),
        laureates_once_each=r.laureates_once_each,
        goals_open_round=r.goals_open_round,
        laureates_marker_only=r.laureates_marker_only,
        max_budding=int(budding.max()),
        max_legal=max_legal,
        fr_setup_atp=layout["gain_setup_atp"],
        fr_pick=layout["gain_setup_pick"],
        fr_additional=layout["gain_additional_resource"],
        fr_start_bonus=layout["gain_start_bonus"],
        fr_spot=layout["gain_spot"],
        fr_yield_bonus=layout["gain_yield_bonus"],
        fr_location_bonus=layout["gain_location_bonus"],
        fr_exhaust=layout["gain_exhaust"],
        fr_event=layout["gain_event"],
        fr_spend_spot=layout["spend_spot_cost"],
        fr_card_price=layout["spend_card_price"],
        fr_completion=layout["spend_completion"],
        fr_loaded=layout["spend_loaded"],
        fr_discard=layout["spend_discard_down"],
        fr_cargo_loaded=layout["cargo_loaded"],
        fr_cargo_returned=layout["cargo_returned"],
        fr_cargo_lost=layout["cargo_lost"],
        n_flow=layout["n_rows"],
        loc_action=loc_action,
        loc_first_spot=loc_first_spot,
        loc_n_spots=loc_n_spots,
        spot_cost=spot_cost,
        spot_gain=spot_gain,
        spot_costly=(spot_cost > 0).any(axis=1).astype(i32),
        loc_first_collect=loc_first_collect,
        fixed_net=fixed_net,
        exhaust_row=n_collect,
        n_fixed_pad=n_fixed_pad,
        slot_prices=np.array(b.slot_prices, i32),
        starting_atp=np.array(b.starting_atp[:players], i32),
        starting_hp=np.array(r.starting_hp_by_seat[:players], i32),
        combos=np.array([[RESOURCES.index(x) for x in c] for c in b.combos], i32),
        supply=np.array(b.supply, i32),
        budding=budding,
        card_in_game=card_in_game,
        card_type=fields["type"],
        card_atp=fields["atp"],
        card_protein=fields["protein"],
        card_carb=fields["carb"],
        card_lipid=fields["lipid"],
        card_golgi=card_golgi,
        card_hp=fields["hp"],
        card_bonus=fields["bonus"],
        card_gain=card_gain,
        type_mask=type_mask,
        vesicle_type_mask=vesicle_mask,
        card_plan=card_plan,
        card_match=card_match,
        event_id=np.array([ev.id for ev in game.events], i32),
        ev_first=ev_first,
        ev_count=ev_count,
        eff_kind=eff_array(lambda e: EVENT_EFFECTS.index(e.kind)),
        eff_loc=eff_array(lambda e: loc_index[e.location] if e.location else -1),
        eff_res=eff_array(lambda e: RESOURCES.index(e.resource) if e.resource else -1),
        eff_types=eff_array(lambda e: type_bits(e.type)),
        eff_cond=eff_array(lambda e: HP_IF_CONDITIONS.index(e.condition) if e.condition else -1),
        eff_n=eff_array(lambda e: e.n),
        eff_m=eff_array(lambda e: e.m),
        eff_limit=eff_array(lambda e: e.limit),
        goal_id=np.array([g.id for g in game.goals], i32),
        goal_criterion=np.array([GOAL_CRITERIA.index(g.criterion) for g in game.goals], i32),
        goal_types=np.array([type_bits(g.type) for g in game.goals], i32),
        goal_res=np.array([RESOURCES.index(g.resource) if g.resource else -1 for g in game.goals], i32),
        goal_n=np.array([g.n for g in game.goals], i32),
        goal_hp=np.array([g.hp for g in game.goals], i32),
        epi_id=np.array([c.id for c in game.epigenetic] or [0], i32),
        epi_yield=epi_yield,
        epi_discount=epi_discount,
        epi_vesicles=epi_vesicles,
        epi_markers=epi_markers,
        epi_start=epi_start,
    )
