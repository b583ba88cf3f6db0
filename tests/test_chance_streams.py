"""Chance streams (docs/rules.md §11): every draw comes from its own keyed stream, so a change to
one card leaves every game in which that card was never visible byte-identical, a no-op
override changes nothing, and a game is the same game whatever chunk it is played in."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcell.config.load import load_default_game
from simcell.kernel.chance import item_hash, keyed_shuffle
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_chunk

SEED = 424242
N = 400


def _with_card(game, card_id: int, **changes):
    cards = tuple(dataclasses.replace(c, **changes) if c.id == card_id else c for c in game.cards)
    return dataclasses.replace(game, cards=cards)


@pytest.mark.parametrize("policy", ["random", "greedy", "planner"])
@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize(
    ("card_id", "changes"),
    [(0, {"atp": 3, "hp": 5}), (14, {"protein": 2, "golgi": "lipid"}), (40, {"atp": 0, "hp": 3})],
)
def test_changing_a_card_leaves_games_where_it_was_never_visible_identical(
    players: int, card_id: int, changes: dict, policy: str
) -> None:
    """Heuristic policies read only visible cards' values, so pairing holds for them too."""
    base = load_default_game()
    changed = _with_card(base, card_id, **changes)
    seating = homogeneous(policy, players)
    a = play_chunk(base, players, SEED, 0, N, seating)
    b = play_chunk(changed, players, SEED, 0, N, seating)
    bit = np.uint64(1) << np.uint64(card_id)
    unseen = (a.games["visible_mask"] & bit) == 0
    assert (unseen == ((b.games["visible_mask"] & bit) == 0)).all()
    assert 8 <= unseen.sum() < N, "the test needs games with and without the card visible"
    rows = np.repeat(unseen, players)
    assert a.players[rows].tobytes() == b.players[rows].tobytes()
    assert a.games[unseen].tobytes() == b.games[unseen].tobytes()
    # and the change did matter somewhere: games where the card was visible differ
    seen = ~unseen
    assert a.players[np.repeat(seen, players)].tobytes() != b.players[np.repeat(seen, players)].tobytes()


def test_no_op_override_gives_identical_records() -> None:
    base = load_default_game()
    same = _with_card(base, 5, atp=base.card(5).atp)
    a = play_chunk(base, 4, SEED, 0, 200)
    b = play_chunk(same, 4, SEED, 0, 200)
    assert a.players.tobytes() == b.players.tobytes()
    assert a.games.tobytes() == b.games.tobytes()


def test_game_n_is_the_same_game_in_any_chunk() -> None:
    game = load_default_game()
    whole = play_chunk(game, 3, SEED, 0, 120)
    parts = [play_chunk(game, 3, SEED, start, n) for start, n in ((0, 7), (7, 50), (57, 63))]
    assert np.concatenate([p.players for p in parts]).tobytes() == whole.players.tobytes()
    assert np.concatenate([p.games for p in parts]).tobytes() == whole.games.tobytes()


def test_different_seeds_give_different_games() -> None:
    game = load_default_game()
    a = play_chunk(game, 3, 1, 0, 50)
    b = play_chunk(game, 3, 2, 0, 50)
    assert (a.games["event_order"] != b.games["event_order"]).any()


@settings(max_examples=300, deadline=None)
@given(
    key=st.integers(0, 2**64 - 1),
    ids=st.lists(st.integers(0, 63), max_size=64),
)
def test_keyed_shuffle_orders_by_hash_then_id(key: int, ids: list[int]) -> None:
    """The shuffle is a stable sort by (item_hash(key, id), id), written out in plain Python
    here; repeated ids (which no shuffle of the game has) keep to it too."""
    key64 = np.uint64(key)
    expected = sorted(ids, key=lambda i: (int(item_hash(key64, np.uint64(i))), i))
    arr = np.array(ids, np.int32)
    keyed_shuffle(key64, arr, len(ids), np.zeros(max(len(ids), 1), np.uint64))
    assert arr.tolist() == expected


def test_keyed_shuffle_leaves_entries_past_n_alone() -> None:
    arr = np.array([5, 3, 9, 1, 7, 7], np.int32)
    keyed_shuffle(np.uint64(99), arr, 4, np.zeros(4, np.uint64))
    assert sorted(arr[:4].tolist()) == [1, 3, 5, 9] and arr[4:].tolist() == [7, 7]
