"""Seat advantage (STATISTICS.md "Seat (first-player) advantage"), per player count and
homogeneous field: win share per seat with simultaneous intervals, the test of equal seats, HP
above the table by seat, Laureates retaken by the marker holder, goal HP and grey flasks by seat,
and the rule settings behind the figure."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcell.reports.data import RunData, SegmentInfo
from simcell.reports.estimates import BlockSums, est_columns, fmt, ratio_by
from simcell.reports.intervals import (
    Estimate,
    TestResult,
    seat_equality,
    sidak,
    t_mean,
    verdict,
)
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import figure

COLUMNS = ["win_share", "final_hp", "laureates_taken", "laureates_as_holder", "hp_goal_marker",
           "hp_goal_bonus", "grey_used"]


@dataclass
class SeatFigures:
    seg: SegmentInfo
    win: list[Estimate]  # win share per seat, simultaneous (Šidák) level
    win_single: list[Estimate]  # the same at the nominal level (verdicts, advice)
    above: dict[int, Estimate]  # HP above the table mean by seat
    retake: dict[int, Estimate]  # Laureates placements made while holding the marker
    goal_hp: dict[int, Estimate]
    grey: dict[int, Estimate]
    test: TestResult
    verdicts: list[str]  # per seat, against the band on win share - 1/n


def seat_figures(run: RunData, seg: SegmentInfo, band_pp: float) -> SeatFigures:
    key = (seg.players, seg.field, band_pp)
    cache_ = run.cache.setdefault("seat_figures", {})
    if key in cache_:
        return cache_[key]
    p = seg.players
    # part file by part file: only the games x seats win shares are kept whole
    share_parts = []
    totals = BlockSums(seg.blocks, ["above", "laureates_taken", "laureates_as_holder", "goal_hp",
                                    "grey_used"], "seat", p)
    for df in run.record_parts("players", seg, COLUMNS):
        share_parts.append(df["win_share"].to_numpy(np.float64).reshape(-1, p))
        hp = df["final_hp"].to_numpy().reshape(-1, p)
        df = df.assign(above=(hp - hp.mean(axis=1, keepdims=True)).reshape(-1),
                       goal_hp=df["hp_goal_marker"] + df["hp_goal_bonus"])
        totals.add(run.block_of_games(seg, df["game"].to_numpy()), df)
    sums = totals.frame()
    shares = np.concatenate(share_parts)
    level = sidak(0.95, p)
    win = [t_mean(shares[:, s]).at_level(level) for s in range(p)]
    win_single = [t_mean(shares[:, s]) for s in range(p)]
    out = SeatFigures(
        seg=seg, win=win, win_single=win_single,
        above=ratio_by(sums, "above", "rows", "seat"),
        retake=ratio_by(sums, "laureates_as_holder", "laureates_taken", "seat"),
        goal_hp=ratio_by(sums, "goal_hp", "rows", "seat"),
        grey=ratio_by(sums, "grey_used", "rows", "seat"),
        test=seat_equality(shares),
        verdicts=[verdict(w.scaled(100, -100 / p), band_pp) for w in win_single],
    )
    cache_[key] = out
    return out


def rule_settings(run: RunData) -> str:
    r = run.game["rules"]
    b = run.game["board"]
    return (f"starting ATP by seat {b['starting_atp']}, grey flasks per player per round "
            f"{r['grey_per_player']}, marker holder may take Laureates "
            f"{str(r['laureates_holder_may_take']).lower()}, turn order `{r['turn_order']}`")


def _figure(figs: list[SeatFigures], band_pp: float):
    fig, axes = figure(ncols=len(figs), figsize=(max(4.0, 3.6 * len(figs)), 3.8), squeeze=False)
    for ax, f in zip(axes[0], figs):
        p = f.seg.players
        seats = np.arange(p)
        vals = np.array([w.value for w in f.win]) * 100
        lo = vals - np.array([w.low for w in f.win]) * 100
        hi = np.array([w.high for w in f.win]) * 100 - vals
        ax.bar(seats, vals, color="#4477aa", alpha=0.85)
        ax.errorbar(seats, vals, yerr=[lo, hi], fmt="none", ecolor="black", capsize=4)
        fair = 100 / p
        ax.axhline(fair, color="black", lw=1, ls="--", label="fair share 1/n")
        ax.axhspan(fair - band_pp, fair + band_pp, color="#228833", alpha=0.15, label=f"band ±{band_pp:g} pp")
        ax.set_xticks(seats, [f"seat {s}" for s in seats])
        ax.set_ylabel("win share (%)")
        ax.set_title(f.seg.label)
    axes[0][0].legend(loc="upper right")
    fig.suptitle("Win share by seat (simultaneous 95% intervals)")
    return fig


def build(run: RunData, band_pp: float) -> Section:
    sec = Section("seats", "Seat advantage")
    homo = [s for s in run.segments if s.homogeneous]
    if not homo:
        sec.text.append("No homogeneous field in this run: seat advantage is estimated only with "
                        "one policy in every seat (a mixed field answers a different question).")
        return sec
    sec.text.append(
        "Estimated in homogeneous fields (one policy in every seat). Win share splits ties; each "
        "seat's interval is a per-game t-interval at the Šidák level that makes the seats' "
        "intervals hold jointly at 95%. The test of equal seats is a multinomial goodness of fit on "
        "the winner's seat when no game tied, else a Wald chi-square on the mean share vector. "
        f"Rule settings behind these figures: {rule_settings(run)}."
    )
    figs = [seat_figures(run, s, band_pp) for s in homo]
    rows, shown = [], []
    for f in figs:
        p = f.seg.players
        for s in range(p):
            row = {"players": p, "field": f.seg.field_name, "seat": s}
            row.update(est_columns("win_share_pp", f.win[s], 100))
            row.update(est_columns("above_fair_pp", f.win_single[s], 100, -100 / p))
            row["verdict"] = f.verdicts[s]
            row.update(est_columns("hp_above_table", f.above[s]))
            row.update(est_columns("laureates_retake_share", f.retake[s]))
            row.update(est_columns("goal_hp", f.goal_hp[s]))
            row.update(est_columns("grey_flasks", f.grey[s]))
            rows.append(row)
            shown.append({
                "players": p, "field": f.seg.field_name, "seat": s,
                "win share % (simultaneous 95%)": fmt(f.win[s], 100),
                "vs fair share, pp": fmt(f.win_single[s], 100, 1, -100 / p),
                "verdict": f.verdicts[s],
                "HP above table": fmt(f.above[s], 1, 2),
                "Laureates taken while holding the marker %": fmt(f.retake[s], 100),
                "goal HP": fmt(f.goal_hp[s], 1, 2),
                "grey flasks per game": fmt(f.grey[s], 1, 2),
            })
    sec.tables.append(Table("seat_advantage", "Seats", pd.DataFrame(rows), pd.DataFrame(shown),
                            note=f"Verdict: win share minus 1/n against the band ±{band_pp:g} pp "
                                 "(equivalence test at 5%)."))
    tests = pd.DataFrame([{"players": f.seg.players, "field": f.seg.field_name,
                           "test": f.test.name, "statistic": round(f.test.statistic, 3),
                           "df": f.test.df, "p_value": f.test.p_value} for f in figs])
    sec.tables.append(Table("seat_equality_test", "Test of equal seats", tests,
                            tests.assign(p_value=tests["p_value"].map(lambda x: f"{x:.3g}")),
                            note="At a million games any real difference is significant: read "
                                 "the verdicts against the band, not the p-value."))
    sec.figures.append(Figure("seat_win_share", "Win share by seat", _figure(figs, band_pp),
                              "Bars: win share by seat; whiskers: simultaneous 95% intervals; "
                              "dashed: the fair share 1/n; green: the tolerance band."))
    return sec
