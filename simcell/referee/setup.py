"""The chance and bookkeeping steps of setup (docs/rules.md §1, kernel-contract.md trace order 1–11).

The two setup decisions (returns, combinations) are taken by the game loop in `play.py`
between these steps. Every shuffle goes through the `shuffle` callable, which returns the new
order of the ids it is given (replay: the trace's order, after checking it; self-play: drawn).
"""

from __future__ import annotations

from collections.abc import Callable

from simcell.vocabulary import (
    ATP,
    CHANCE_DECK_ORDER,
    CHANCE_DETOX_REMOVAL,
    CHANCE_EPIGENETIC_DEAL,
    CHANCE_EVENT_ORDER,
    CHANCE_EVENT_REMOVAL,
    CHANCE_GOAL_ORDER,
    CHANCE_SETUP_SHUFFLE,
    HP_SOURCES,
    RESOURCES,
)
from simcell.referee.ledger import gain, measure_peak
from simcell.referee.modifiers import epigenetic_effects
from simcell.referee.resolve import resolve_additional_resource
from simcell.referee.state import GameState, player_count_index

# shuffle(purpose, index, ids in ascending order) -> the same ids in their new order
Shuffle = Callable[[int, int, list[int]], list[int]]

# Index of every chance stream used once per game (reshuffles count 1, 2, ...).
ONCE = 0


def deal(state: GameState, shuffle: Shuffle) -> None:
    """Steps 1–2: events set aside and ordered, goals revealed, 2-player Detoxification removal,
    deck shuffled, Card Area filled, cards dealt, epigenetic cards dealt."""
    game, board, pc = state.game, state.game.board, player_count_index(state.players)

    order = shuffle(CHANCE_EVENT_REMOVAL, ONCE, sorted(e.id for e in game.events))
    set_aside = board.events_set_aside[pc]
    state.events_set_aside = order[:set_aside]
    state.event_deck = shuffle(CHANCE_EVENT_ORDER, ONCE, sorted(order[set_aside:]))
    state.add_log("events", set_aside=list(state.events_set_aside), deck=list(state.event_deck))

    order = shuffle(CHANCE_GOAL_ORDER, ONCE, sorted(g.id for g in game.goals))
    state.goals_in_play = order[: board.goals_revealed[pc]]
    state.goal_markers = [[] for _ in state.goals_in_play]
    state.add_log("goals", goals=list(state.goals_in_play))

    in_game = sorted(c.id for c in game.cards)
    if state.players == 2 and game.rules.two_player_remove_detox:
        detox = sorted(c.id for c in game.cards if c.type == "detox")
        order = shuffle(CHANCE_DETOX_REMOVAL, ONCE, detox)
        state.detox_removed = order[: board.two_player_detox_removed]
        in_game = [c for c in in_game if c not in state.detox_removed]
        state.add_log("detox_removed", cards=list(state.detox_removed))

    deck = shuffle(CHANCE_DECK_ORDER, ONCE, in_game)
    slots = len(board.slot_prices)
    state.card_area = list(deck[:slots])
    state.visible.update(c for c in state.card_area if c is not None)
    deck = deck[slots:]
    state.add_log("card_area", slots=list(state.card_area))
    for player in state.seats:
        player.dealt = deck[: board.cards_dealt]
        player.hand = set(player.dealt)
        state.visible.update(player.dealt)
        deck = deck[board.cards_dealt :]
        state.add_log("dealt", player.seat, cards=list(player.dealt))
    state.deck = deck

    if game.rules.epigenetic:
        order = shuffle(CHANCE_EPIGENETIC_DEAL, ONCE, sorted(e.id for e in game.epigenetic))
        for player in state.seats:
            player.epigenetic = order[player.seat]
            for effect in epigenetic_effects(state, player.seat):
                if effect.kind == "extra_vesicle":
                    player.disks += effect.n
                elif effect.kind == "extra_goal_marker":
                    player.goal_markers += effect.n
            state.add_log("epigenetic", player.seat, card=player.epigenetic)


def shuffle_returns(state: GameState, shuffle: Shuffle) -> None:
    """End of step 3: the returned cards go into the deck, which is shuffled once."""
    state.deck = shuffle(CHANCE_SETUP_SHUFFLE, ONCE, sorted(state.deck + state.returned_cards))
    state.add_log("setup_shuffle", cards=len(state.deck))


def give_starting_atp(state: GameState) -> None:
    """Step 4: starting ATP by seat."""
    for player in state.seats:
        amount = state.game.board.starting_atp[player.seat]
        got = gain(state, player.seat, ATP, amount, state.row("gain_setup_atp"))
        state.add_log("starting_atp", player.seat, atp=got)


def give_starting_hp(state: GameState) -> None:
    """Step 4 also: starting HP by seat (rules.starting_hp_by_seat), its own HP source."""
    for player in state.seats:
        amount = state.game.rules.starting_hp_by_seat[player.seat]
        if amount:  # the shipped game starts everyone at 0 and says nothing
            player.hp_by_source[HP_SOURCES.index("start")] += amount
            state.add_log("starting_hp", player.seat, hp=amount)


def resolve_kept_cards(state: GameState) -> None:
    """Step 6, seat by seat: kept Additional Resource cards in id order, then start_bonus."""
    for player in state.seats:
        for card_id in sorted(player.hand):
            if state.cards[card_id].type == "additional_resource":
                got = resolve_additional_resource(state, player.seat, card_id)
                state.add_log("kept_additional_resource", player.seat, card=card_id, got=got)
        for effect in epigenetic_effects(state, player.seat):
            if effect.kind == "start_bonus":
                r = RESOURCES.index(effect.resource or "")
                got = gain(state, player.seat, r, effect.n, state.row("gain_start_bonus"))
                state.add_log("start_bonus", player.seat, resource=r, got=got)
    state.marker = 0
    measure_peak(state)
    state.add_log("setup_done", stocks=[list(p.stock) for p in state.seats])
