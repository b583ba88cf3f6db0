"""Heuristic play pinned bit for bit: the records and block aggregates of a few hundred games of
each heuristic field hash to the digests below. Speed work on the evaluator, the softmax or the
rules must leave every game as it was; a change that means to alter play (a rule, a parameter
default, the evaluator's arithmetic) updates them, and says so in its commit:

    python -m tests.test_play_digests   # prints the digests of the current code

(The golden logs pin random games move by move; these pin the policies' choices as well.)

Record schema 2 added fields to the player records (each goal marker's card, round and claim
order, and each goal card's end bonus), which changed the digests without changing a game: the
digests of the records without those fields are still schema 1's (DIGESTS_SCHEMA_1). Record
schema 3 added the HP source "start" (rules.starting_hp_by_seat, 0 in the shipped game): without
it the records are schema 2's (DIGESTS_SCHEMA_2)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from numpy.lib.recfunctions import repack_fields

from simcell.config.load import load_default_game
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_chunk

GAME = load_default_game()
SEED, GAMES, BLOCKS = 7, 300, 8
FIELDS = [(policy, players) for policy in ("greedy", "planner", "detox_goals") for players in (2, 5)]

DIGESTS = {
    ("greedy", 2): "adac5c1ffd6141d8",
    ("greedy", 5): "38400f34af6088d0",
    ("planner", 2): "132f5afe60cab003",
    ("planner", 5): "18ed988533bc1514",
    ("detox_goals", 2): "f9d4e9c0ee33886d",
    ("detox_goals", 5): "38a424664ae97c3d",
}
# the same games' digests at record schema 2 (before the HP source "start"): unchanged
DIGESTS_SCHEMA_2 = {
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


def _without_start_source(records: np.ndarray) -> np.ndarray:
    """The records as schema 2 laid them out: hp_by_source without its last source, "start"."""
    dtype = [(n, records.dtype[n].base, records.dtype[n].shape[:-1] + (records.dtype[n].shape[-1] - 1,))
             if n == "hp_by_source" else (n, records.dtype[n].base, records.dtype[n].shape)
             for n in records.dtype.names]
    out = np.empty(len(records), dtype)
    for n in records.dtype.names:
        out[n] = records[n][:, :-1] if n == "hp_by_source" else records[n]
    return out


def digest(policy: str, players: int, schema: int = 3, **params: float) -> str:
    seating = homogeneous(policy, players, **params)
    chunk = play_chunk(GAME, players, SEED, 0, GAMES, seating, blocks=BLOCKS)
    records = chunk.players
    if schema <= 2:
        assert not records["hp_by_source"][:, -1].any()  # no starting HP in the shipped game
        records = _without_start_source(records)
    if schema == 1:
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
def test_the_games_are_those_of_record_schemas_1_and_2(policy: str, players: int) -> None:
    """Schemas 2 and 3 added record fields only: without them the records are the earlier
    schemas', bit for bit."""
    assert digest(policy, players, schema=2) == DIGESTS_SCHEMA_2[(policy, players)]
    assert digest(policy, players, schema=1) == DIGESTS_SCHEMA_1[(policy, players)]


def test_the_digest_sees_a_changed_game() -> None:
    """The digest covers what play changes: one parameter moved a little gives another."""
    assert digest("greedy", 2) != digest("greedy", 2, need=0.36)


if __name__ == "__main__":
    for policy, players in FIELDS:
        print(f'    ("{policy}", {players}): "{digest(policy, players)}",')
