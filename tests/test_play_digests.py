"""Heuristic play pinned bit for bit: the records and block aggregates of a few hundred games of
each heuristic field hash to the digests below. Speed work on the evaluator, the softmax or the
rules must leave every game as it was; a change that means to alter play (a rule, a parameter
default, the evaluator's arithmetic) updates them, and says so in its commit:

    python -m tests.test_play_digests   # prints the digests of the current code

(The golden logs pin random games move by move; these pin the policies' choices as well.)

Record schema 2 added fields to the player records (each goal marker's card, round and claim
order, and each goal card's end bonus), which changed the digests without changing a game: the
digests of the records without those fields are still schema 1's (DIGESTS_SCHEMA_1)."""

from __future__ import annotations

import hashlib

import pytest
from numpy.lib.recfunctions import repack_fields

from simcell.config.load import load_default_game
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_chunk

GAME = load_default_game()
SEED, GAMES, BLOCKS = 7, 300, 8
FIELDS = [(policy, players) for policy in ("greedy", "planner", "detox_goals") for players in (2, 5)]

DIGESTS = {
    ("greedy", 2): "618b4405dd576027",
    ("greedy", 5): "ee1e6beb8612edae",
    ("planner", 2): "1f9346a6050e80f8",
    ("planner", 5): "5d7703d8e63bc357",
    ("detox_goals", 2): "49f3d2d08acf4da6",
    ("detox_goals", 5): "58c8eb5fdc16623e",
}
# the same games' digests at record schema 1 (before the fields below were added): unchanged
DIGESTS_SCHEMA_1 = {
    ("greedy", 2): "201b8b80e822ec0c",
    ("greedy", 5): "8780e7d36121fb73",
    ("planner", 2): "c5dcc879fadde230",
    ("planner", 5): "445ca0e7a8988efd",
    ("detox_goals", 2): "b26cdcfbc8ed0f9c",
    ("detox_goals", 5): "e868915061e7b1c4",
}
SCHEMA_2_FIELDS = ("goal_marker_round", "goal_marker_order", "goal_bonus_by_goal")


def digest(policy: str, players: int, schema_1: bool = False, **params: float) -> str:
    seating = homogeneous(policy, players, **params)
    chunk = play_chunk(GAME, players, SEED, 0, GAMES, seating, blocks=BLOCKS)
    records = chunk.players
    if schema_1:
        records = repack_fields(records[[n for n in records.dtype.names if n not in SCHEMA_2_FIELDS]])
    h = hashlib.sha256(records.tobytes())
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


@pytest.mark.parametrize("policy,players", FIELDS)
def test_the_games_are_those_of_record_schema_1(policy: str, players: int) -> None:
    """Schema 2 added record fields only: without them the records are schema 1's, bit for bit."""
    assert digest(policy, players, schema_1=True) == DIGESTS_SCHEMA_1[(policy, players)]


def test_the_digest_sees_a_changed_game() -> None:
    """The digest covers what play changes: one parameter moved a little gives another."""
    assert digest("greedy", 2) != digest("greedy", 2, need=0.36)


if __name__ == "__main__":
    for policy, players in FIELDS:
        print(f'    ("{policy}", {players}): "{digest(policy, players)}",')
