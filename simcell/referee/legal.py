"""The legal actions of the player to move, as sorted action codes (docs/rules.md §2–§3, and the
"Legal actions" section of kernel-contract.md). Setup decisions are covered too."""

from __future__ import annotations

from simcell.vocabulary import (
    ACT_COMBO,
    ACT_EXHAUST,
    ACT_PASS,
    ACT_PLACE,
    ACT_RETURN,
    ATP,
    CARB,
    ENZYME,
    CARD_TYPES,
    DETOX,
    EXHAUST_RESOURCES,
    FLASK_GREY,
    FLASK_OWN,
    GOLGI_CARB,
    GOLGI_LIPID,
    GOLGI_RESOURCES,
    LIPID,
    MRNA,
    N_RESOURCES,
    ORG_GOLGI,
    ORG_ROUGH,
    ORG_SMOOTH,
    PROTEIN,
    ROUGH_ER_TYPES,
    SMOOTH_ER_TYPES,
    SOURCE_RADIX,
    encode_action,
)
from simcell.referee.modifiers import completion_atp
from simcell.referee.state import PHASE_ONE, SETUP_COMBO, SETUP_RETURN, GameState

# A placement option: (location index, p1, p2, p3); the flask is added when encoding.
Option = tuple[int, int, int, int]


def legal_actions(state: GameState) -> list[int]:
    """Every legal action code of the decision pending in `state`, ascending."""
    seat = state.to_move
    if seat is None:
        return []
    if state.phase == SETUP_RETURN:
        return sorted(encode_action(ACT_RETURN, p1=c) for c in state.seats[seat].dealt)
    if state.phase == SETUP_COMBO:
        return [encode_action(ACT_COMBO, p1=i) for i in range(len(state.game.board.combos))]
    if state.phase != PHASE_ONE:
        return []
    player = state.seats[seat]
    codes: list[int] = []
    options = placement_options(state, seat)
    if unplaced_own_flasks(state, seat) > 0:
        codes += [encode_action(ACT_PLACE, FLASK_OWN, *o) for o in options]
        codes += [encode_action(ACT_EXHAUST, p1=r) for r in EXHAUST_RESOURCES]
    else:
        codes.append(encode_action(ACT_PASS))
    if state.grey_left > 0 and player.grey_placed < state.game.rules.grey_per_player:
        codes += [encode_action(ACT_PLACE, FLASK_GREY, *o) for o in options]
    return sorted(codes)


def unplaced_own_flasks(state: GameState, seat: int) -> int:
    player = state.seats[seat]
    total = state.game.board.flasks(state.players)
    return total - player.flasks_placed - player.flasks_exhausted_round


def placement_options(state: GameState, seat: int) -> list[Option]:
    """Every legal placement of one flask by `seat`, whichever flask it is."""
    options: list[Option] = []
    for li, loc in enumerate(state.game.board.locations):
        free = [i for i, occupant in enumerate(state.spots[li]) if occupant is None]
        if not free:
            continue
        options += _OPTIONS[loc.action](state, seat, li, free)
    return options


def max_trade(state: GameState, seat: int) -> int:
    """Largest k for an mRNA -> Protein exchange (Free Ribosome, Rough ER)."""
    k = min(state.seats[seat].stock[MRNA], state.game.rules.max_batch)
    if state.game.rules.supply_limited:
        k = min(k, state.supply_left(PROTEIN))
    return k


def victims(state: GameState, seat: int, organelle: int) -> list[int]:
    """Victim fields (budding index + 1) a vesicle arriving at `organelle` may take: [0] when a
    budding location is free, else one per rival vesicle there (docs/rules.md §3 "Displacement")."""
    locations = state.budding[organelle]
    if any(v is None for v in locations):
        return [0]
    return [i + 1 for i, v in enumerate(locations) if v is not None and v.owner != seat]


def lowest_free_budding(state: GameState, organelle: int) -> int:
    return next(i for i, v in enumerate(state.budding[organelle]) if v is None)


def fits_vesicle(state: GameState, seat: int, card_id: int, organelle: int, index: int) -> bool:
    """Can this card be completed by exocytosis with the vesicle at (organelle, index)?"""
    vesicle = state.budding[organelle][index]
    card = state.cards[card_id]
    if vesicle is None or vesicle.owner != seat:
        return False
    if vesicle.origin == ORG_ROUGH:
        if card.type not in ROUGH_ER_TYPES or vesicle.load < card.protein:
            return False
    elif card.type not in SMOOTH_ER_TYPES or vesicle.load < card.lipid:
        return False
    # The Golgi resource must be exactly the card's, and never counts toward the ER load.
    if vesicle.golgi < 0 or GOLGI_RESOURCES[vesicle.golgi] != card.golgi:
        return False
    return state.seats[seat].stock[ATP] >= completion_atp(state, seat, card)


# -- options per location action ---------------------------------------------------------------
def _collect(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    stock = state.seats[seat].stock
    spots = state.game.board.locations[li].spots
    return [
        (li, s, 0, 0)
        for s in free
        if all(stock[r] >= spots[s].cost[r] for r in range(N_RESOURCES))
    ]


def _translate(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    return [(li, k, 0, 0) for k in range(1, max_trade(state, seat) + 1)]


def _card_area(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    atp = state.seats[seat].stock[ATP]
    out = []
    for slot in free:
        if state.card_area[slot] is not None and atp >= slot_price(state, slot):
            out.append((li, slot, 0, 0))
    return out


def slot_price(state: GameState, slot: int) -> int:
    """A Card Area slot's price after the round's card_discount, minimum 0."""
    return max(0, state.game.board.slot_prices[slot] - state.card_discount)


def _enzyme_synthesis(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    stock = state.seats[seat].stock
    out = []
    for card_id in sorted(state.seats[seat].hand):
        card = state.cards[card_id]
        if (
            card.type == CARD_TYPES[ENZYME]
            and stock[ATP] >= completion_atp(state, seat, card)
            and stock[PROTEIN] >= card.protein
            and stock[CARB] >= card.carb
        ):
            out.append((li, card_id, 0, 0))
    return out


def _protein_synthesis(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    if state.free_disks(seat) < 1:
        return []
    top = max_trade(state, seat)
    return [(li, k, v, 0) for k in range(1, top + 1) for v in victims(state, seat, ORG_ROUGH)]


def _steroid_synthesis(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    if state.free_disks(seat) < 1:
        return []
    top = min(state.seats[seat].stock[LIPID], state.game.rules.max_batch)
    return [(li, k, v, 0) for k in range(1, top + 1) for v in victims(state, seat, ORG_SMOOTH)]


def _golgi(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    stock = state.seats[seat].stock
    resources = [g for g, r in ((GOLGI_CARB, CARB), (GOLGI_LIPID, LIPID)) if stock[r] >= 1]
    out = []
    for org in (ORG_ROUGH, ORG_SMOOTH):
        for index, vesicle in enumerate(state.budding[org]):
            if vesicle is None or vesicle.owner != seat:
                continue
            for g in resources:
                for v in victims(state, seat, ORG_GOLGI):
                    out.append((li, org * SOURCE_RADIX + index, g, v))
    return out


def _exocytosis(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    out = []
    for index, vesicle in enumerate(state.budding[ORG_GOLGI]):
        if vesicle is None or vesicle.owner != seat:
            continue
        for card_id in sorted(state.seats[seat].hand):
            if fits_vesicle(state, seat, card_id, ORG_GOLGI, index):
                out.append((li, index, card_id, 0))
    return out


def _detoxification(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    atp = state.seats[seat].stock[ATP]
    out = []
    for card_id in sorted(state.seats[seat].hand):
        card = state.cards[card_id]
        if card.type == CARD_TYPES[DETOX] and atp >= completion_atp(state, seat, card):
            out.append((li, card_id, 0, 0))
    return out


def _laureates(state: GameState, seat: int, li: int, free: list[int]) -> list[Option]:
    rules = state.game.rules
    if not rules.laureates_holder_may_take and seat == state.round_start_marker:
        return []
    if rules.laureates_once_each and seat in state.laureates_visited:
        return []  # not again until every player has been there
    out = [(li, 0, 0, 0)]
    if (markers_left(state, seat) > 0 and state.round >= rules.goals_open_round
            and not rules.laureates_marker_only):
        cap = state.game.board.max_markers_per_goal
        for gi, on_card in enumerate(state.goal_markers):
            if len(on_card) < cap and seat not in on_card:
                out.append((li, 1 + gi, 0, 0))
    return out


def markers_left(state: GameState, seat: int) -> int:
    player = state.seats[seat]
    return player.goal_markers - player.goal_markers_placed


_OPTIONS = {
    "collect": _collect,
    "translate": _translate,
    "card_area": _card_area,
    "enzyme_synthesis": _enzyme_synthesis,
    "protein_synthesis": _protein_synthesis,
    "steroid_synthesis": _steroid_synthesis,
    "golgi": _golgi,
    "exocytosis": _exocytosis,
    "detoxification": _detoxification,
    "laureates": _laureates,
}
