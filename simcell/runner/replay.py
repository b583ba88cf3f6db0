"""Replaying one game for people: play it with its trace, check it with the referee, and
render the referee's log."""

from __future__ import annotations

from pathlib import Path

from simcell.config.load import PolicyField
from simcell.config.model import GameDefinition
from simcell.referee import GameMeta, format_log, replay
from simcell.runner.fields import seating
from simcell.runner.games import play_traced


def replay_log(
    game: GameDefinition, players: int, seed: int, index: int, field: PolicyField,
    base: Path = Path("."),
) -> str:
    """The referee-checked log of game `index` of a run (its seat order as the field's
    rotation gives it)."""
    s = seating(field, players)
    traced = play_traced(game, players, seed, index, s, base=base)
    order = s.seat_orders[index % s.rotations]
    meta = GameMeta(
        game=index, deal=index, rotation=index % s.rotations,
        seat_player=tuple(int(p) for p in order),
        seat_policy=tuple(int(s.player_label[p]) for p in order),
    )
    result = replay(game, players, traced.trace, meta)
    return format_log(game, players, result) + "\n"
