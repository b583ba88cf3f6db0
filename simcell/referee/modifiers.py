"""Small facts the rules look up: which completed types a type-or-group name covers, and what a
player's Epigenetic Modification card changes (docs/rules.md §5, §7)."""

from __future__ import annotations

from simcell.config.model import Card, Effect
from simcell.vocabulary import COMPLETED_TYPES, TYPE_GROUPS
from simcell.referee.state import GameState


def types_of(type_or_group: str) -> tuple[str, ...]:
    """The completed types a name covers: a group's members, or the type itself."""
    return TYPE_GROUPS.get(type_or_group, (type_or_group,))


def completed_count(state: GameState, seat: int, type_or_group: str) -> int:
    """Cards of a type or group that `seat` has completed."""
    wanted = types_of(type_or_group)
    return sum(1 for c in state.seats[seat].completed if state.cards[c].type in wanted)


def completed_by_type(state: GameState, seat: int) -> list[int]:
    """Completed cards per type, COMPLETED_TYPES order."""
    counts = [0] * len(COMPLETED_TYPES)
    for c in state.seats[seat].completed:
        counts[COMPLETED_TYPES.index(state.cards[c].type)] += 1
    return counts


def epigenetic_effects(state: GameState, seat: int) -> tuple[Effect, ...]:
    """The effects of the seat's epigenetic card; none without the variant."""
    card_id = state.seats[seat].epigenetic
    if card_id is None:
        return ()
    for card in state.game.epigenetic:
        if card.id == card_id:
            return card.effects
    raise KeyError(card_id)


def yield_bonus(state: GameState, seat: int, location: int) -> int:
    """Extra yield the seat's epigenetic card gives at a location (index in board order)."""
    location_id = state.game.board.locations[location].id
    return sum(
        e.n for e in epigenetic_effects(state, seat) if e.kind == "yield_bonus" and e.location == location_id
    )


def completion_atp(state: GameState, seat: int, card: Card) -> int:
    """A card's completion ATP after the seat's epigenetic cost_discount, minimum 0."""
    discount = sum(
        e.a
        for e in epigenetic_effects(state, seat)
        if e.kind == "cost_discount" and card.type in types_of(e.type or "")
    )
    return max(0, card.atp - discount)
