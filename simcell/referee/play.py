"""The one game loop: setup, rounds, scoring (docs/rules.md §1–§2, kernel-contract.md trace order).

Chance outcomes and choices come from a `Table`: replay reads and checks them from a trace,
self-play draws them. The loop itself holds no random generator.
"""

from __future__ import annotations

from typing import Protocol

from simcell.config.model import GameDefinition
from simcell.referee.legal import legal_actions
from simcell.referee.resolve import apply
from simcell.referee.rounds import phase_two, record_round_hp, start_round
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
    state = new_game_state(game, players, meta)
    deal(state, table.shuffle)
    _decide_each_seat(state, table, SETUP_RETURN)
    shuffle_returns(state, table.shuffle)
    give_starting_atp(state)
    give_starting_hp(state)
    _decide_each_seat(state, table, SETUP_COMBO)
    resolve_kept_cards(state)
    for number in range(1, state.rounds + 1):
        start_round(state, number)
        while state.to_move is not None:
            take_decision(state, table)
        if number < state.rounds:
            phase_two(state, table.shuffle)
        record_round_hp(state)
    score_game(state)
    return state


def _decide_each_seat(state: GameState, table: Table, phase: str) -> None:
    state.phase = phase
    state.to_move = 0
    while state.to_move is not None:
        take_decision(state, table)


def take_decision(state: GameState, table: Table) -> None:
    """Ask the table for the pending decision and apply it (automatic if only one is legal)."""
    legal = legal_actions(state)
    code = table.decide(state, legal)
    apply(state, code, automatic=len(legal) == 1, check=False)
