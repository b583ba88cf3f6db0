"""The one game loop: setup, rounds, scoring (docs/rules.md §1–§2, kernel-contract.md trace order).

Chance outcomes and choices come from a `Table`: replay reads and checks them from a trace,
self-play draws them. `game_steps` is the same loop for a caller that is asked for each decision
instead (the agent environment, simcell/env/). The loop itself holds no random generator.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Protocol

from simcell.config.model import GameDefinition
from simcell.referee.legal import legal_actions
from simcell.referee.resolve import apply
from simcell.referee.rounds import Shuffle, phase_two, record_round_hp, start_round
from simcell.referee.scoring import score_game
from simcell.referee.setup import (
    deal,
    give_starting_atp,
    give_starting_hp,
    resolve_kept_cards,
    shuffle_returns,
)
from simcell.referee.state import (
    SETUP_COMBO,
    SETUP_RETURN,
    GameMeta,
    GameState,
    new_game_state,
)


class Table(Protocol):
    """Where a game's chance outcomes and decisions come from."""

    def shuffle(self, purpose: int, index: int, ids: list[int]) -> list[int]:
        """The new order of `ids` (given ascending) for the chance stream (purpose, index)."""
        ...

    def decide(self, state: GameState, legal: list[int]) -> int:
        """The action chosen by the player to move among `legal` (ascending codes)."""
        ...


def play_game(game: GameDefinition, players: int, meta: GameMeta, table: Table) -> GameState:
    """Play one whole game and score it; returns the final state."""
    steps = game_steps(game, players, meta, table.shuffle)
    try:
        state, legal = next(steps)
        while True:
            state, legal = steps.send(table.decide(state, legal))
    except StopIteration as end:
        return end.value


def game_steps(
    game: GameDefinition, players: int, meta: GameMeta, shuffle: Shuffle
) -> Generator[tuple[GameState, list[int]], int, GameState]:
    """The game loop as a generator, for callers that are asked for each decision rather than
    asking for it (an agent environment): yields (state, legal actions) at every decision,
    automatic ones included, is sent the chosen code, and returns the scored final state."""
    state = new_game_state(game, players, meta)
    deal(state, shuffle)
    yield from _each_seat(state, SETUP_RETURN)
    shuffle_returns(state, shuffle)
    give_starting_atp(state)
    give_starting_hp(state)
    yield from _each_seat(state, SETUP_COMBO)
    resolve_kept_cards(state)
    for number in range(1, state.rounds + 1):
        start_round(state, number)
        while state.to_move is not None:
            yield from _decision(state)
        if number < state.rounds:
            phase_two(state, shuffle)
        record_round_hp(state)
    score_game(state)
    return state


def _each_seat(state: GameState, phase: str) -> Generator[tuple[GameState, list[int]], int, None]:
    state.phase = phase
    state.to_move = 0
    while state.to_move is not None:
        yield from _decision(state)


def _decision(state: GameState) -> Generator[tuple[GameState, list[int]], int, None]:
    """The pending decision: its legal actions out, the chosen code in and applied (automatic if
    only one is legal)."""
    legal = legal_actions(state)
    code = yield state, legal
    apply(state, code, automatic=len(legal) == 1, check=False)
