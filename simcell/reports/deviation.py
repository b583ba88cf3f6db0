"""One deviating player against the field, paired game by game with the field itself: per-block
sums for player 0 (the deviant, in every seat in turn) and, in each game, its strongest opponent
(the seat with the highest baseline win share other than player 0's): wins, and completions of
every card. `simcell probe` (a card favoured) and `simcell exploit` (a worth moved) both measure
their deviations so."""

from __future__ import annotations

import numpy as np

from simcell.reports.changes import CompareError
from simcell.reports.data import RunData, SegmentInfo
from simcell.reports.paired import Sums


N_CARD_IDS = 64


def seat_order(run: RunData, seg: SegmentInfo) -> np.ndarray:
    """Seats by win share in the run, highest first."""
    win = np.zeros(seg.players)
    for df in run.record_parts("players", seg, ["win_share"]):
        win += df["win_share"].to_numpy().reshape(-1, seg.players).sum(axis=0)
    return np.argsort(-win, kind="stable")


def deviant_sums(run: RunData, seg: SegmentInfo, order: np.ndarray) -> Sums:
    """Per-block sums for player 0 and, in each game, the strongest opponent (order[0], or
    order[1] when player 0 sits there): wins, and completions of every card (by card id)."""
    p, k = seg.players, seg.blocks
    out = {"games": np.zeros(k), "w0": np.zeros(k), "wo": np.zeros(k),
           "k0": np.zeros((k, N_CARD_IDS)), "ko": np.zeros((k, N_CARD_IDS))}
    bits = np.arange(N_CARD_IDS, dtype=np.uint64)
    for df in run.record_parts("players", seg, ["player", "win_share", "completed_mask"]):
        n = len(df) // p
        rows = np.arange(n)
        probe = np.argmax(df["player"].to_numpy().reshape(n, p) == 0, axis=1)
        opp = np.where(probe == order[0], order[1], order[0])
        win = df["win_share"].to_numpy(np.float64).reshape(n, p)
        mask = df["completed_mask"].to_numpy().astype(np.uint64).reshape(n, p)
        blocks = run.block_of_games(seg, df["game"].to_numpy()[::p])
        per_game = {"games": np.ones(n), "w0": win[rows, probe], "wo": win[rows, opp],
                    "k0": ((mask[rows, probe][:, None] >> bits) & np.uint64(1)).astype(np.float64),
                    "ko": ((mask[rows, opp][:, None] >> bits) & np.uint64(1)).astype(np.float64)}
        for b in np.unique(blocks):
            sel = blocks == b
            for name, values in per_game.items():
                out[name][b] += values[sel].sum(axis=0)
    return out


def check_paired(base: RunData, run: RunData, name: str) -> None:
    """A probe run pairs with its baseline: the same seed, player counts, games and blocks."""
    same = (base.seed == run.seed and [(s.players, s.games, s.blocks, s.rotations) for s in base.segments]
            == [(s.players, s.games, s.blocks, s.rotations) for s in run.segments])
    if not same:
        raise CompareError(f"the probe run of {name} does not play the baseline's games "
                           "(seed, games or blocks differ): replay it with --force")
