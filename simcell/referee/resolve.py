"""Applying one decision: a setup return or combination, or a Phase 1 action (docs/rules.md §2–§5,
§10 order inside an action, kernel-contract.md bookings). Then the turn passes on."""

from __future__ import annotations

from simcell.vocabulary import (
    ACT_COMBO,
    ACT_EXHAUST,
    ACT_PASS,
    ACT_PLACE,
    ACT_RETURN,
    ATP,
    CARB,
    CARD_TYPES,
    FLASK_GREY,
    GOLGI_CARB,
    HP_SOURCES,
    LIPID,
    MRNA,
    N_RESOURCES,
    ORG_GOLGI,
    ORG_ROUGH,
    ORG_SMOOTH,
    PROTEIN,
    RESOURCES,
    SOURCE_RADIX,
    decode_action,
)
from simcell.referee.actions import describe_action
from simcell.referee.errors import RefereeError
from simcell.referee.ledger import book_cargo, gain, measure_peak, spend, take_from_supply
from simcell.referee.legal import legal_actions, lowest_free_budding, slot_price
from simcell.referee.modifiers import completion_atp, yield_bonus
from simcell.referee.state import (
    PHASE_ONE,
    SETUP_COMBO,
    SETUP_RETURN,
    GameState,
    Vesicle,
)

Notes = list[tuple]  # what happened inside an action, for the log


def apply(state: GameState, code: int, *, automatic: bool = False, check: bool = True) -> None:
    """Apply the pending decision `code` and pass the turn on.

    With `check`, an action outside `legal_actions(state)` raises RefereeError; `automatic` only
    marks the log line.
    """
    seat = state.to_move
    if seat is None:
        raise RefereeError(f"no decision is pending (phase {state.phase})")
    if check and code not in legal_actions(state):
        raise RefereeError(
            f"seat {seat} may not {describe_action(state.game, code, state.goals_in_play)}"
        )
    kind, flask, target, p1, p2, p3 = decode_action(code)
    if state.phase == SETUP_RETURN and kind == ACT_RETURN:
        _return_card(state, seat, p1)
        state.to_move = seat + 1 if seat + 1 < state.players else None
        return
    if state.phase == SETUP_COMBO and kind == ACT_COMBO:
        _take_combo(state, seat, p1)
        state.to_move = seat + 1 if seat + 1 < state.players else None
        return
    if state.phase != PHASE_ONE:
        raise RefereeError(f"action {code} does not fit phase {state.phase}")
    before_stock = [list(p.stock) for p in state.seats]
    before_hp = [list(p.hp_by_source) for p in state.seats]
    before_shortfall = list(state.supply_shortfall)
    notes: Notes = []
    player = state.seats[seat]
    if kind == ACT_PASS:
        player.out = True
    elif kind == ACT_EXHAUST:
        player.flasks_exhausted_round += 1
        player.flasks_exhausted += 1
        gain(state, seat, p1, 1, state.row("gain_exhaust"))
    elif kind == ACT_PLACE:
        _place(state, seat, flask, target, p1, p2, p3, notes)
    else:
        raise RefereeError(f"action {code} does not fit phase {state.phase}")
    measure_peak(state)
    stock_delta = {
        s: [p.stock[r] - before_stock[s][r] for r in range(N_RESOURCES)]
        for s, p in enumerate(state.seats)
        if p.stock != before_stock[s]
    }
    hp_delta = {
        s: [p.hp_by_source[i] - before_hp[s][i] for i in range(len(HP_SOURCES))]
        for s, p in enumerate(state.seats)
        if p.hp_by_source != before_hp[s]
    }
    shortfall = [a - b for a, b in zip(state.supply_shortfall, before_shortfall)]
    state.add_log(
        "turn", seat, code=code, automatic=automatic, notes=notes,
        stock_delta=stock_delta, hp_delta=hp_delta, shortfall=shortfall,
    )
    state.to_move = next_to_move(state, seat)


def next_to_move(state: GameState, after: int) -> int | None:
    """The next seat after `after` that is not out (docs/rules.md §2): in increasing index
    modulo P (clockwise), round the round's table forwards or backwards (snake_round), or along
    this pass round the table and then the next pass, read the other way (snake_pass)."""
    order = state.game.rules.placement_order
    if order == "clockwise":
        for step in range(1, state.players + 1):
            seat = (after + step) % state.players
            if not state.seats[seat].out:
                return seat
        return None
    table = state.round_table()
    at = table.index(after)
    if order == "snake_round":
        ahead = table[at + 1:] + table[:at + 1]  # round the table, back to `after` last
    else:  # snake_pass: the rest of this pass, then the whole next pass the other way
        rest = table[at + 1:]
        if any(not state.seats[s].out for s in rest):
            ahead = rest
        else:
            state.backwards = not state.backwards
            ahead = table[::-1]
    for seat in ahead:
        if not state.seats[seat].out:
            return seat
    return None


# -- setup decisions ----------------------------------------------------------------------------
def _return_card(state: GameState, seat: int, card_id: int) -> None:
    player = state.seats[seat]
    player.hand.remove(card_id)
    player.returned = card_id
    state.returned_cards.append(card_id)
    state.add_log("return", seat, card=card_id)


def _take_combo(state: GameState, seat: int, combo: int) -> None:
    got = [0] * N_RESOURCES
    for name in state.game.board.combos[combo]:
        r = RESOURCES.index(name)
        got[r] += gain(state, seat, r, 1, state.row("gain_setup_pick"))
    state.add_log("combo", seat, combo=combo, got=got)


# -- placements ---------------------------------------------------------------------------------
def _place(
    state: GameState, seat: int, flask: int, li: int, p1: int, p2: int, p3: int, notes: Notes
) -> None:
    loc = state.game.board.locations[li]
    player = state.seats[seat]
    action = loc.action
    if action in ("collect", "card_area"):
        spot = p1
    else:
        spot = next(i for i, occupant in enumerate(state.spots[li]) if occupant is None)
    state.spots[li][spot] = (seat, flask)
    notes.append(("spot", spot))
    if flask == FLASK_GREY:
        state.grey_left -= 1
        player.grey_placed += 1
        player.grey_used += 1
    else:
        player.flasks_placed += 1
    player.placements_by_location[li] += 1

    bought_resource_card = None
    if action == "collect":
        _collect(state, seat, li, spot, notes)
    elif action == "translate":
        _translate(state, seat, li, p1, notes)
    elif action == "card_area":
        bought_resource_card = _buy(state, seat, p1, notes)
    elif action == "enzyme_synthesis":
        card = state.cards[p1]
        row = state.row("spend_completion", CARD_TYPES.index(card.type))
        spend(state, seat, ATP, completion_atp(state, seat, card), row)
        spend(state, seat, PROTEIN, card.protein, row)
        spend(state, seat, CARB, card.carb, row)
        _complete(state, seat, p1, notes)
    elif action == "protein_synthesis":
        _protein_synthesis(state, seat, li, p1, p2, notes)
    elif action == "steroid_synthesis":
        _steroid_synthesis(state, seat, li, p1, p2, notes)
    elif action == "golgi":
        _golgi(state, seat, p1, p2, p3, notes)
    elif action == "exocytosis":
        _exocytosis(state, seat, p1, p2, notes)
    elif action == "detoxification":
        card = state.cards[p1]
        row = state.row("spend_completion", CARD_TYPES.index(card.type))
        spend(state, seat, ATP, completion_atp(state, seat, card), row)
        _complete(state, seat, p1, notes)
    elif action == "laureates":
        _laureates(state, seat, li, p1, notes)

    # The event location bonus: the first placement at the location this round claims it.
    for bonus in state.location_bonuses:
        if bonus.location == li and not bonus.claimed:
            bonus.claimed = True
            got = gain(state, seat, bonus.resource, bonus.n, state.row("gain_location_bonus"))
            notes.append(("location_bonus", bonus.resource, bonus.n, got))
    if bought_resource_card is not None:
        resolve_additional_resource(state, seat, bought_resource_card)
        notes.append(("additional_resource", bought_resource_card))


def _collect(state: GameState, seat: int, li: int, spot_index: int, notes: Notes) -> None:
    spot = state.game.board.locations[li].spots[spot_index]
    for r in range(N_RESOURCES):
        spend(state, seat, r, spot.cost[r], state.row("spend_spot_cost", li))
    for r in range(N_RESOURCES):
        gain(state, seat, r, spot.gain[r], state.row("gain_spot", li))
    n = yield_bonus(state, seat, li)
    for r in range(N_RESOURCES):
        if spot.gain[r] > 0 and n > 0:
            got = gain(state, seat, r, n, state.row("gain_yield_bonus"))
            notes.append(("yield_bonus", r, got))


def _translate(state: GameState, seat: int, li: int, k: int, notes: Notes) -> None:
    spend(state, seat, MRNA, k, state.row("spend_spot_cost", li))
    gain(state, seat, PROTEIN, k, state.row("gain_spot", li))
    n = yield_bonus(state, seat, li)
    if n > 0:
        got = gain(state, seat, PROTEIN, n, state.row("gain_yield_bonus"))
        notes.append(("yield_bonus", PROTEIN, got))


def _buy(state: GameState, seat: int, slot: int, notes: Notes) -> int | None:
    """Buy the card in a slot; returns it if it is an Additional Resource card (resolved last)."""
    player = state.seats[seat]
    card_id = state.card_area[slot]
    assert card_id is not None
    spend(state, seat, ATP, slot_price(state, slot), state.row("spend_card_price"))
    state.card_area[slot] = None  # the slot stays empty until Phase 2
    player.bought.append(card_id)
    notes.append(("bought", card_id, slot))
    if state.cards[card_id].type == "additional_resource":
        return card_id
    player.hand.add(card_id)
    return None


def resolve_additional_resource(state: GameState, seat: int, card_id: int) -> list[int]:
    """An Additional Resource card entering a hand: gain its resources, then discard it."""
    card = state.cards[card_id]
    got = [
        gain(state, seat, r, card.gain[r], state.row("gain_additional_resource"))
        for r in range(N_RESOURCES)
    ]
    state.seats[seat].hand.discard(card_id)
    state.discard.append(card_id)
    return got


def _complete(state: GameState, seat: int, card_id: int, notes: Notes) -> None:
    player = state.seats[seat]
    card = state.cards[card_id]
    player.hand.remove(card_id)
    player.completed.append(card_id)
    player.hp_by_source[HP_SOURCES.index(card.type)] += card.hp
    notes.append(("completed", card_id, card.hp))


def _displace(state: GameState, organelle: int, index: int, notes: Notes) -> None:
    """Remove a rival's vesicle: cargo to the supply, disk back to its owner at once."""
    vesicle = state.budding[organelle][index]
    assert vesicle is not None
    cargo = vesicle.cargo()
    book_cargo(state, vesicle.owner, "cargo_lost", cargo)
    state.seats[vesicle.owner].vesicles_lost += 1
    state.budding[organelle][index] = None
    notes.append(("displaced", vesicle.owner, organelle, index, cargo))


def _protein_synthesis(
    state: GameState, seat: int, li: int, k: int, victim: int, notes: Notes
) -> None:
    spend(state, seat, MRNA, k, state.row("spend_spot_cost", li))
    if victim:
        _displace(state, ORG_ROUGH, victim - 1, notes)
    index = lowest_free_budding(state, ORG_ROUGH)
    # the vesicle is on the board holding its cargo before the yield bonus is taken, so the
    # limited supply the bonus sees already lacks the k Protein just loaded
    vesicle = Vesicle(owner=seat, origin=ORG_ROUGH, load=take_from_supply(state, PROTEIN, k))
    state.budding[ORG_ROUGH][index] = vesicle
    vesicle.load += take_from_supply(state, PROTEIN, yield_bonus(state, seat, li))
    book_cargo(state, seat, "cargo_loaded", vesicle.cargo())
    notes.append(("vesicle", ORG_ROUGH, index, vesicle.cargo()))


def _steroid_synthesis(
    state: GameState, seat: int, li: int, k: int, victim: int, notes: Notes
) -> None:
    spend(state, seat, LIPID, k, state.row("spend_loaded"))
    if victim:
        _displace(state, ORG_SMOOTH, victim - 1, notes)
    index = lowest_free_budding(state, ORG_SMOOTH)
    # the k Lipid are on the vesicle (not back in the supply) when the yield bonus is taken
    vesicle = Vesicle(owner=seat, origin=ORG_SMOOTH, load=k)
    state.budding[ORG_SMOOTH][index] = vesicle
    vesicle.load += take_from_supply(state, LIPID, yield_bonus(state, seat, li))
    book_cargo(state, seat, "cargo_loaded", vesicle.cargo())
    notes.append(("vesicle", ORG_SMOOTH, index, vesicle.cargo()))


def _golgi(state: GameState, seat: int, source: int, golgi: int, victim: int, notes: Notes) -> None:
    resource = CARB if golgi == GOLGI_CARB else LIPID
    spend(state, seat, resource, 1, state.row("spend_loaded"))
    added = [0] * N_RESOURCES
    added[resource] = 1
    book_cargo(state, seat, "cargo_loaded", added)
    organelle, index = divmod(source, SOURCE_RADIX)
    vesicle = state.budding[organelle][index]
    assert vesicle is not None and vesicle.owner == seat
    state.budding[organelle][index] = None
    if victim:
        _displace(state, ORG_GOLGI, victim - 1, notes)
    target = lowest_free_budding(state, ORG_GOLGI)
    vesicle.golgi = golgi
    state.budding[ORG_GOLGI][target] = vesicle
    notes.append(("moved", organelle, index, target))


def _exocytosis(state: GameState, seat: int, index: int, card_id: int, notes: Notes) -> None:
    card = state.cards[card_id]
    spend(
        state, seat, ATP, completion_atp(state, seat, card),
        state.row("spend_completion", CARD_TYPES.index(card.type)),
    )
    vesicle = state.budding[ORG_GOLGI][index]
    assert vesicle is not None
    cargo = vesicle.cargo()
    book_cargo(state, seat, "cargo_returned", cargo)  # all cargo, surplus included
    state.budding[ORG_GOLGI][index] = None  # the disk returns to its owner
    notes.append(("cargo_returned", cargo))
    _complete(state, seat, card_id, notes)


def _laureates(state: GameState, seat: int, li: int, choice: int, notes: Notes) -> None:
    player = state.seats[seat]
    player.laureates_taken += 1
    if state.marker == seat:
        player.laureates_as_holder += 1
    if state.game.rules.turn_order == "marker":
        notes.append(("marker", state.marker == seat))
        state.marker = seat
    if state.game.rules.laureates_once_each:
        state.laureates_visited.add(seat)
        if len(state.laureates_visited) == state.players:  # everyone has been: a new circle
            state.laureates_visited = set()
    if choice == 0:
        gain(state, seat, ATP, 1, state.row("gain_spot", li))
        return
    goal_index = choice - 1
    on_card = state.goal_markers[goal_index]
    first = not on_card
    claims = sum(1 for markers in state.goal_markers if markers)  # goal cards already claimed
    on_card.append(seat)
    state.goal_marker_round[goal_index, seat] = state.round
    player.goal_markers_placed += 1
    hp = state.game.first_marker_hp(claims) if first else 0
    player.hp_by_source[HP_SOURCES.index("goal_marker")] += hp
    notes.append(("goal_marker", goal_index, hp))
