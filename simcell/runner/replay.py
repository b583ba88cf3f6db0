"""Replaying one game for people: play it with its trace, check it with the referee, and
render the referee's log."""

from __future__ import annotations

import numpy as np

from simcell.config.load import PolicyField
from simcell.config.model import GameDefinition
from simcell.policies.registry import policy_id
from simcell.referee import GameMeta, format_log, replay
from simcell.runner.games import play_traced


def seat_policies(field: PolicyField, players: int) -> tuple[int, ...]:
    """Policy id in each seat for a homogeneous or per-seat field."""
    names = [field.policy] * players if field.policy is not None else list(field.seats or ())
    return tuple(policy_id(n) for n in names)


def replay_log(game: GameDefinition, players: int, seed: int, index: int, field: PolicyField) -> str:
    """The referee-checked log of game `index` of a run."""
    policies = seat_policies(field, players)
    traced = play_traced(game, players, seed, index, np.array(policies, np.int64))
    meta = GameMeta(game=index, deal=index, rotation=0, seat_player=tuple(range(players)),
                    seat_policy=policies)
    result = replay(game, players, traced.trace, meta)
    return format_log(game, players, result) + "\n"
