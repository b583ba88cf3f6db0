"""Self-play with the referee's own rules: shuffles and uniform random choices drawn with
Python's `random.Random`, written as a trace in the kernel's TRACE format. Lets replay be tested
without the kernel, and gives tests traces to tamper with."""

from __future__ import annotations

import random

from simcell.config.model import GameDefinition
from simcell.vocabulary import TRACE_DECISION, TRACE_END, TRACE_SHUFFLE
from simcell.referee.play import play_game
from simcell.referee.state import GameMeta, GameState


class RandomTable:
    """A `play.Table` drawing every outcome from one `random.Random` and writing the trace."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.trace: list[int] = []

    def shuffle(self, purpose: int, index: int, ids: list[int]) -> list[int]:
        order = list(ids)
        self.rng.shuffle(order)
        self.trace += [TRACE_SHUFFLE, purpose, index, len(order), *order]
        return order

    def decide(self, state: GameState, legal: list[int]) -> int:
        automatic = len(legal) == 1
        chosen = legal[0] if automatic else self.rng.choice(legal)  # automatic turns draw nothing
        assert state.to_move is not None
        self.trace += [TRACE_DECISION, state.to_move, int(automatic), len(legal), *legal, chosen]
        return chosen


def play_random_game(
    game: GameDefinition, players: int, rng: random.Random, meta: GameMeta
) -> list[int]:
    """Play one game with uniformly random legal choices; returns its trace."""
    table = RandomTable(rng)
    play_game(game, players, meta, table)
    table.trace.append(TRACE_END)
    return table.trace
