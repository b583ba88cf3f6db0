"""Block aggregates out of the kernel (docs/method.md §1; issue: card-area exposures, card x
round acquired and completed, spot occupancy by round and pick order): checked against a
recomputation from the referee's log of the same games, and on a hand-built market scenario."""

from __future__ import annotations

import numpy as np
import pytest

from simcell.config.load import load_default_game
from simcell.vocabulary import ACT_PLACE, decode_action
from simcell.kernel.rounds import phase_two, start_round
from simcell.kernel.setup import apply_combo, apply_return, reset_state, setup_game
from simcell.kernel.state import G_ROUND, G_TO_MOVE, new_state
from simcell.referee import GameMeta, replay
from simcell.runner.games import play_chunk, play_traced, tables_for

SEED = 99


def _expected_from_log(game, players, traced, result):
    """Per-game aggregates recomputed from the referee's log and records."""
    board = game.board
    n_ids = max(c.id for c in game.cards) + 1
    n_slots = len(board.slot_prices)
    rounds = max(game.rounds(p) for p in range(2, 6))
    n_prices = max(board.slot_prices) + 1
    card_area = board.locations.index(board.location_with("card_area"))
    first_spot = np.cumsum([0] + [len(loc.spots) for loc in board.locations])
    exp = {
        "offered": np.zeros((n_ids, n_slots, n_prices), np.int64),
        "bought": np.zeros((n_ids, n_slots, n_prices), np.int64),
        "discarded": np.zeros(n_ids, np.int64),
        "acquired": np.zeros((n_ids, rounds + 1), np.int64),
        "completed": np.zeros((n_ids, rounds + 1), np.int64),
        "occupancy": np.zeros((first_spot[-1], rounds), np.int64),  # summed over pick order
    }
    for row in traced.players:
        for c in range(n_ids):
            if int(row["kept_mask"]) >> c & 1:
                exp["acquired"][c, 0] += 1
    slots: list = []
    discount = 0
    for e in result.log:
        if e.kind == "card_area":
            slots = list(e.detail["slots"])
        elif e.kind == "refresh":
            if e.detail["discarded"] is not None:
                exp["discarded"][e.detail["discarded"]] += 1
            slots = list(e.detail["slots"])
        elif e.kind == "round":
            discount = e.detail["card_discount"]
            for slot, c in enumerate(slots):
                if c is not None:
                    exp["offered"][c, slot, max(0, board.slot_prices[slot] - discount)] += 1
        elif e.kind == "turn":
            kind, _, target, p1, _, _ = decode_action(e.detail["code"])
            if kind != ACT_PLACE:
                continue
            spot = next(n[1] for n in e.detail["notes"] if n[0] == "spot")
            exp["occupancy"][first_spot[target] + spot, e.round - 1] += 1
            for note in e.detail["notes"]:
                if note[0] == "bought":
                    _, c, slot = note
                    exp["bought"][c, slot, max(0, board.slot_prices[slot] - discount)] += 1
                    exp["acquired"][c, e.round] += 1
                    slots[slot] = None
                elif note[0] == "completed":
                    exp["completed"][note[1], e.round] += 1
            assert target != card_area or any(n[0] == "bought" for n in e.detail["notes"])
    return exp


@pytest.mark.parametrize("players", [2, 3, 5])
def test_aggregates_match_the_referee_log(players: int) -> None:
    game = load_default_game()
    n = 40
    expected = None
    for g in range(n):
        traced = play_traced(game, players, SEED, g)
        result = replay(game, players, traced.trace,
                        GameMeta(game=g, deal=g, rotation=0, seat_player=tuple(range(players)),
                                 seat_policy=(0,) * players))
        one = _expected_from_log(game, players, traced, result)
        expected = one if expected is None else {k: expected[k] + one[k] for k in one}
    chunk = play_chunk(game, players, SEED, 0, n, blocks=1)
    agg = {k: v[0] for k, v in chunk.aggregates.items()}
    for name in ("offered", "bought", "discarded", "acquired", "completed"):
        assert np.array_equal(agg[name], expected[name]), name
    assert np.array_equal(agg["occupancy"].sum(axis=2), expected["occupancy"])
    # pick orders run 0, 1, ... within a round: each round's picks are a prefix
    picks = agg["occupancy"].sum(axis=(0, 1))
    assert (np.diff(picks) <= 0).all() and picks[0] > 0


def test_blocks_are_fixed_by_game_index_not_by_chunk() -> None:
    game = load_default_game()
    whole = play_chunk(game, 4, SEED, 0, 130, blocks=50)
    parts = [play_chunk(game, 4, SEED, s, k, total_games=130, blocks=50)
             for s, k in ((0, 33), (33, 60), (93, 37))]
    for name, value in whole.aggregates.items():
        assert np.array_equal(sum(p.aggregates[name] for p in parts), value), name
    # block sizes: game g of N in block floor(g * K / N)
    per_block = whole.aggregates["offered"].sum(axis=(1, 2, 3))
    counts = np.bincount(np.arange(130) * 50 // 130, minlength=50)
    assert (per_block > 0).all() and len(per_block) == 50 and counts.sum() == 130


def slide_scenario():
    """A 3-player game in which nobody buys anything for four rounds: the card dealt to slot 3
    slides to slot 0 and is discarded. Returns the State (aggregates zeroed before round 1) and
    the card."""
    game = load_default_game()
    gt = tables_for(game, 3)
    st = new_state(gt, 0, 1)
    reset_state(st, gt, SEED, 0, False, 0)
    setup_game(st, gt)
    for _ in range(3):
        seat = st.g[G_TO_MOVE]
        apply_return(st, gt, next(c for c in range(gt.n_ids) if int(st.hand[seat]) >> c & 1))
    for _ in range(3):
        apply_combo(st, gt, 0)
    for name in ("offered", "bought", "discarded"):
        getattr(st.tallies, name)[:] = 0
    card = int(st.slot_card[3])
    # every event revealed is Energy Surplus (no card discount): prices stay the slots' own
    energy = next(i for i, e in enumerate(game.events) if e.name == "Energy Surplus")
    st.event_deck[:] = energy
    st.g[G_ROUND] = 0
    start_round(st, gt)  # round 1: the card at slot 3
    for _ in range(4):
        phase_two(st, gt)  # nobody placed: slot 0 is discarded, the rest slide left
        start_round(st, gt)
    return st, card


def test_market_scenario_card_slides_from_slot_3_to_0_unbought() -> None:
    """A card entering at slot 3 and sliding to slot 0 unbought counts 4 exposures at prices
    3, 2, 1, 0 and one discard unbought (nobody buys anything for four rounds)."""
    st, card = slide_scenario()
    offered = st.tallies.offered[0, card]
    assert offered[3, 3] == 1 and offered[2, 2] == 1 and offered[1, 1] == 1 and offered[0, 0] == 1
    assert offered.sum() == 4
    assert st.tallies.bought[0].sum() == 0
    assert st.tallies.discarded[0, card] == 1
