"""Heuristic play pinned bit for bit: the records and block aggregates of a few hundred games of
each heuristic field hash to the digests below. Speed work on the evaluator, the softmax or the
rules must leave every game as it was; a change that means to alter play (a rule, a parameter
default, the evaluator's arithmetic) updates them, and says so in its commit:

    python -m tests.test_play_digests   # prints the digests of the current code

(The golden logs pin random games move by move; these pin the policies' choices as well.)"""

from __future__ import annotations

import hashlib

import pytest

from simcell.config.load import load_default_game
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_chunk

GAME = load_default_game()
SEED, GAMES, BLOCKS = 7, 300, 8
FIELDS = [(policy, players) for policy in ("greedy", "planner", "detox_goals") for players in (2, 5)]

DIGESTS = {
    ("greedy", 2): "201b8b80e822ec0c",
    ("greedy", 5): "8780e7d36121fb73",
    ("planner", 2): "c5dcc879fadde230",
    ("planner", 5): "445ca0e7a8988efd",
    ("detox_goals", 2): "b26cdcfbc8ed0f9c",
    ("detox_goals", 5): "e868915061e7b1c4",
}


def digest(policy: str, players: int, **params: float) -> str:
    seating = homogeneous(policy, players, **params)
    chunk = play_chunk(GAME, players, SEED, 0, GAMES, seating, blocks=BLOCKS)
    h = hashlib.sha256(chunk.players.tobytes())
    h.update(chunk.games.tobytes())
    for name in sorted(chunk.aggregates):
        h.update(name.encode())
        h.update(chunk.aggregates[name].tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("policy,players", FIELDS)
def test_heuristic_games_are_unchanged(policy: str, players: int) -> None:
    assert digest(policy, players) == DIGESTS[(policy, players)], (
        f"{policy} games at {players} players changed; if that is meant, update DIGESTS "
        "(python -m tests.test_play_digests)")


def test_the_digest_sees_a_changed_game() -> None:
    """The digest covers what play changes: one parameter moved a little gives another."""
    assert digest("greedy", 2) != digest("greedy", 2, need=0.36)


if __name__ == "__main__":
    for policy, players in FIELDS:
        print(f'    ("{policy}", {players}): "{digest(policy, players)}",')
