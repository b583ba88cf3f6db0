"""Round structure: starting a Phase 1, and Phase 2 — retrieve flasks, end the round's effects,
reveal and resolve the event, refresh the Card Area, pass the marker when rotating
(docs/rules.md §2, §6, kernel-contract.md trace order 12)."""

from __future__ import annotations

from collections.abc import Callable

from simcell.config.model import Effect
from simcell.vocabulary import (
    CHANCE_RESHUFFLE,
    HP_SOURCES,
    MACROMOLECULES,
    N_RESOURCES,
    RESOURCES,
)
from simcell.referee.ledger import gain, measure_peak, spend
from simcell.referee.modifiers import completed_count
from simcell.referee.state import PHASE_ONE, PHASE_TWO, GameState, LocationBonus

Shuffle = Callable[[int, int, list[int]], list[int]]
EVENT_HP = HP_SOURCES.index("event")


def start_round(state: GameState, number: int) -> None:
    """Phase 1 of round `number` begins: every flask unplaced, the marker holder to move; with
    placement_order = snake_round an even round is the table read backwards, so the seat before
    the holder moves first and the holder last."""
    state.round = number
    state.phase = PHASE_ONE
    state.spots = [[None] * len(loc.spots) for loc in state.game.board.locations]
    state.grey_left = state.game.board.grey_flasks
    for player in state.seats:
        player.flasks_placed = 0
        player.flasks_exhausted_round = 0
        player.grey_placed = 0
        player.out = False
    state.round_start_marker = state.marker
    state.first_player.append(state.marker)
    state.backwards = state.game.rules.placement_order == "snake_round" and number % 2 == 0
    state.to_move = state.round_table()[0]
    state.add_log(
        "round",
        state.marker,
        first_to_move=state.to_move,
        location_bonuses=[(b.location, b.resource, b.n) for b in state.location_bonuses],
        card_discount=state.card_discount,
    )


def phase_two(state: GameState, shuffle: Shuffle) -> None:
    """Phase 2 of the current round (never after the final round)."""
    state.phase = PHASE_TWO
    state.to_move = None
    # Retrieve all flasks and return the grey flasks.
    state.spots = [[None] * len(loc.spots) for loc in state.game.board.locations]
    state.grey_left = state.game.board.grey_flasks
    # End every effect of the round just played.
    state.location_bonuses = []
    state.card_discount = 0
    # Reveal and resolve the top event.
    event_id = state.event_deck.pop(0)
    state.events_revealed.append(event_id)
    resolve_event(state, event_id)
    measure_peak(state)
    refresh_card_area(state, shuffle)
    if state.game.rules.turn_order == "rotate":
        state.marker = (state.marker + 1) % state.players
        state.add_log("marker_passes", state.marker)


def resolve_event(state: GameState, event_id: int) -> None:
    """Resolve an event's effects in the order listed (docs/rules.md §6)."""
    event = next(e for e in state.game.events if e.id == event_id)
    outcomes = [_resolve_effect(state, effect) for effect in event.effects]
    state.add_log("event", event=event_id, outcomes=outcomes)


def _resolve_effect(state: GameState, effect: Effect) -> dict:
    kind = effect.kind
    if kind == "location_bonus":
        location = next(
            i for i, loc in enumerate(state.game.board.locations) if loc.id == effect.location
        )
        resource = RESOURCES.index(effect.resource or "")
        state.location_bonuses.append(LocationBonus(location, resource, effect.n))
        return {"kind": kind, "location": location, "resource": resource, "n": effect.n}
    if kind == "all_gain":
        resource = RESOURCES.index(effect.resource or "")
        got = {}
        for seat in state.turn_order_from_marker():  # matters only with a limited supply
            got[seat] = gain(state, seat, resource, effect.n, state.row("gain_event"))
        return {"kind": kind, "resource": resource, "got": got}
    if kind == "card_discount":
        state.card_discount += effect.n
        return {"kind": kind, "n": effect.n}
    if kind == "discard_down":
        lost = {}
        for player in state.seats:
            returned = [0] * N_RESOURCES
            for name in MACROMOLECULES:
                r = RESOURCES.index(name)
                returned[r] = max(0, player.stock[r] - effect.limit)
                spend(state, player.seat, r, returned[r], state.row("spend_discard_down"))
            if any(returned):
                lost[player.seat] = returned
        return {"kind": kind, "limit": effect.limit, "lost": lost}
    if kind == "hp_if":
        applied = {}
        for player in state.seats:
            if _condition_met(state, player.seat, effect):
                change = effect.n if effect.n >= 0 else max(effect.n, -player.hp)  # never below 0
                player.hp_by_source[EVENT_HP] += change
                applied[player.seat] = change
        return {"kind": kind, "applied": applied}
    raise ValueError(f"unknown event effect {kind!r}")


def _condition_met(state: GameState, seat: int, effect: Effect) -> bool:
    if effect.condition == "completed_at_least":
        return completed_count(state, seat, effect.type or "") >= effect.m
    stock = state.seats[seat].stock[RESOURCES.index(effect.resource or "")]
    if effect.condition == "stock_at_least":
        return stock >= effect.m
    if effect.condition == "stock_at_most":
        return stock <= effect.m
    raise ValueError(f"unknown hp_if condition {effect.condition!r}")


def refresh_card_area(state: GameState, shuffle: Shuffle) -> None:
    """Discard slot 0 if it holds a card, slide left keeping order, fill left to right from the
    deck; reshuffle the whole discard pile only when a card must be drawn from an empty deck."""
    slots = len(state.card_area)
    discarded = state.card_area[0]
    if discarded is not None:
        state.discard.append(discarded)
    remaining = [c for c in state.card_area[1:] if c is not None]
    area: list[int | None] = list(remaining) + [None] * (slots - len(remaining))
    drawn = []
    reshuffled = []
    for slot in range(len(remaining), slots):
        if not state.deck:
            if not state.discard:
                break
            state.reshuffles += 1
            state.deck = shuffle(CHANCE_RESHUFFLE, state.reshuffles, sorted(state.discard))
            reshuffled.append(len(state.deck))
            state.discard = []
        card = state.deck.pop(0)
        area[slot] = card
        state.visible.add(card)
        drawn.append(card)
    state.card_area = area
    state.add_log(
        "refresh", discarded=discarded, drawn=drawn, reshuffled=reshuffled,
        slots=list(area), deck=len(state.deck), discard=len(state.discard),
    )


def record_round_hp(state: GameState) -> None:
    """hp_by_round: every player's HP at the end of the round just played."""
    for player in state.seats:
        player.hp_by_round.append(player.hp)
