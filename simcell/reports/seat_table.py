"""The seats of a run: each seat's win share and HP against the fair share with simultaneous
intervals, its HP above the table by source, who holds the First Player Marker round by round,
and the verdict over every seat against the band; the seat furthest from fair, which the seat
searches minimise. The report's seat section, its verdicts and summary, the verdicts across
skill, `simcell seats` and `simcell tune` read their seat figures here."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcell.reports.data import HP_SOURCE_COLUMNS, RunData, SegmentInfo
from simcell.reports.estimates import BlockSums, ratio_by
from simcell.reports.intervals import (
    IN_BAND,
    INCONCLUSIVE,
    OUT_OF_BAND,
    Estimate,
    TestResult,
    jackknife_ratio,
    seat_equality,
    sidak,
    t_mean,
    verdict,
)


COLUMNS = ["win_share", "final_hp", "laureates_taken", "laureates_as_holder", "hp_goal_marker",
           "hp_goal_bonus", "grey_used", "goal_markers_placed"] + HP_SOURCE_COLUMNS


def seat_name(seat: int) -> str:
    """How the report names a seat: seat 0 is the first player (docs/rules.md §1)."""
    return "seat 0 (first player)" if seat == 0 else f"seat {seat}"


@dataclass
class SeatFigures:
    seg: SegmentInfo
    win: list[Estimate]  # win share per seat, simultaneous (Šidák) level
    win_single: list[Estimate]  # the same at the nominal level (verdicts, advice)
    above: dict[int, Estimate]  # HP above the table mean by seat
    above_by_source: dict[str, dict[int, Estimate]]  # the same, source by source (they add up)
    retake: dict[int, Estimate]  # Laureates placements made while holding the marker
    laureates: dict[int, Estimate]  # Laureates placements per game
    goal_markers: dict[int, Estimate]  # goal markers placed per game
    goal_hp: dict[int, Estimate]
    grey: dict[int, Estimate]
    holder: np.ndarray  # rounds x seats: share of games the seat holds the marker as the round starts
    holder_se: np.ndarray
    test: TestResult
    verdicts: list[str]  # per seat, against the band on win share - 1/n


def _holder_by_round(run: RunData, seg: SegmentInfo) -> tuple[np.ndarray, np.ndarray]:
    """Share of games in which each seat holds the First Player Marker at the start of each
    round (round 1: seat 0), of the games that reach the round; jackknife over blocks."""
    p, k = seg.players, seg.blocks
    rounds = max_rounds(run, seg)
    cols = [f"first_player_round_{r}" for r in range(2, rounds + 1)]
    counts = np.zeros((k, rounds, p))
    reached = np.zeros((k, rounds))
    for df in run.record_parts("games", seg, cols):
        blocks = run.block_of_games(seg, df["game"].to_numpy())
        reached[:, 0] += np.bincount(blocks, minlength=k)
        counts[:, 0, 0] += np.bincount(blocks, minlength=k)
        for r, c in enumerate(cols, start=1):
            holder = df[c].to_numpy()
            ok = holder >= 0
            reached[:, r] += np.bincount(blocks[ok], minlength=k)
            counts[:, r] += np.bincount(blocks[ok] * p + holder[ok], minlength=k * p).reshape(k, p)
    share, se = np.full((rounds, p), np.nan), np.full((rounds, p), np.nan)
    for r in range(rounds):
        for s in range(p):
            e = jackknife_ratio(counts[:, r, s], reached[:, r])
            share[r, s], se[r, s] = e.value, e.se
    return share, se


def max_rounds(run: RunData, seg: SegmentInfo) -> int:
    """Rounds of a game at this player count: one per event revealed, plus the last."""
    return run.rounds(seg.players)


def _above_table(df: pd.DataFrame, col: str, players: int) -> np.ndarray:
    """Each player's value minus the mean of its game's table (rows game-major, seat-minor)."""
    v = df[col].to_numpy(np.float64).reshape(-1, players)
    return (v - v.mean(axis=1, keepdims=True)).reshape(-1)


def seat_figures(run: RunData, seg: SegmentInfo, band_pp: float) -> SeatFigures:
    key = (seg.players, seg.field, band_pp)
    cache_ = run.cache.setdefault("seat_figures", {})
    if key in cache_:
        return cache_[key]
    p = seg.players
    # part file by part file: only the games x seats win shares are kept whole
    share_parts = []
    above_src = [f"above_{c}" for c in HP_SOURCE_COLUMNS]
    totals = BlockSums(seg.blocks, ["above", "laureates_taken", "laureates_as_holder", "goal_hp",
                                    "grey_used", "goal_markers_placed"] + above_src, "seat", p)
    for df in run.record_parts("players", seg, COLUMNS):
        share_parts.append(df["win_share"].to_numpy(np.float64).reshape(-1, p))

        df = df.assign(above=_above_table(df, "final_hp", p),
                       goal_hp=df["hp_goal_marker"] + df["hp_goal_bonus"],
                       **{f"above_{c}": _above_table(df, c, p) for c in HP_SOURCE_COLUMNS})
        totals.add(run.block_of_games(seg, df["game"].to_numpy()), df)
    sums = totals.frame()
    shares = np.concatenate(share_parts)
    level = sidak(0.95, p)
    win = [t_mean(shares[:, s]).at_level(level) for s in range(p)]
    win_single = [t_mean(shares[:, s]) for s in range(p)]
    holder, holder_se = _holder_by_round(run, seg)
    out = SeatFigures(
        seg=seg, win=win, win_single=win_single,
        above=ratio_by(sums, "above", "rows", "seat"),
        above_by_source={c[3:]: ratio_by(sums, f"above_{c}", "rows", "seat") for c in HP_SOURCE_COLUMNS},
        retake=ratio_by(sums, "laureates_as_holder", "laureates_taken", "seat"),
        laureates=ratio_by(sums, "laureates_taken", "rows", "seat"),
        goal_markers=ratio_by(sums, "goal_markers_placed", "rows", "seat"),
        goal_hp=ratio_by(sums, "goal_hp", "rows", "seat"),
        grey=ratio_by(sums, "grey_used", "rows", "seat"),
        holder=holder, holder_se=holder_se,
        test=seat_equality(shares),
        verdicts=[verdict(w.scaled(100, -100 / p), band_pp) for w in win_single],
    )
    cache_[key] = out
    return out


def rounds_held(shares: np.ndarray) -> str:
    """The rounds a seat holds the marker at the start of in more than half the games, as
    "rounds 1–3, 9"."""
    held = [r + 1 for r, v in enumerate(shares) if v > 0.5]
    runs: list[list[int]] = []
    for r in held:
        if runs and r == runs[-1][-1] + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    text = ", ".join(f"{g[0]}–{g[-1]}" if len(g) > 1 else f"{g[0]}" for g in runs)
    return ("rounds " if len(held) > 1 else "round ") + text if held else ""


def main_source(f: SeatFigures, seat: int) -> tuple[str, Estimate]:
    """The HP source that adds most to a seat's HP above the table, with its estimate."""
    return max(((src, by_seat[seat]) for src, by_seat in f.above_by_source.items()),
               key=lambda x: x[1].value if np.isfinite(x[1].value) else -np.inf)


def overall(verdicts: list[str]) -> str:
    if OUT_OF_BAND in verdicts:
        return OUT_OF_BAND
    return IN_BAND if all(v == IN_BAND for v in verdicts) else INCONCLUSIVE


def worst_seat(run: RunData) -> list[dict]:
    """Per homogeneous segment: the seat furthest from the fair share, its distance (pp) with a
    95% interval, and the verdict over every seat against the band."""
    out = []
    for seg in run.segments:
        if not seg.homogeneous:
            continue
        f = seat_figures(run, seg, run.seat_band(seg.players))
        p = seg.players
        s = max(range(p), key=lambda i: abs(f.win_single[i].value - 1 / p))
        w = f.win_single[s].scaled(100, -100 / p)
        out.append({"players": p, "field": seg.field_name, "worst seat": seat_name(s),
                    "distance_pp": w.value, "low": w.low, "high": w.high, "verdict": overall(f.verdicts)})
    return out


def worst_seat_pp(run: RunData) -> float:
    """The search's objective: the largest |win share − fair share| (pp) over seats and segments."""
    return max(abs(r["distance_pp"]) for r in worst_seat(run))
