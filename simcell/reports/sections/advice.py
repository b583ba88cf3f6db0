"""Sample-size advice from the run's own standard errors (docs/method.md §14): games needed for a
target precision, and the smallest effect this run can detect."""

from __future__ import annotations

import pandas as pd

from simcell.reports.data import RunData
from simcell.reports.intervals import detectable_effect, games_needed
from simcell.reports.render import Section, Table
from simcell.reports.seat_table import seat_figures

TARGETS_PP = (0.5, 0.25)  # half-widths of a seat's win share, percentage points
TARGET_HP = 0.1  # half-width of HP above the table


def build(run: RunData) -> Section:
    sec = Section("advice", "Sample size")
    sec.text.append(
        "From this run's own standard errors: the games per player count and field needed for a "
        "target interval half-width (N × (h / h*)²), and the smallest difference detectable at 80% "
        "power and 5% two-sided ((1.96 + 0.84) × SE). Stop runs on precision, never on significance."
    )
    rows = []
    for seg in run.segments:
        if not seg.homogeneous:
            continue
        f = seat_figures(run, seg, run.seat_band(seg.players))
        w = f.win_single[0].scaled(100)
        row = {"players": seg.players, "field": seg.field_name, "games": seg.games,
               "seat 0 win share ± (pp)": round(w.half_width, 3),
               "detectable seat difference (pp)": round(detectable_effect(w.se), 3)}
        for t in TARGETS_PP:
            row[f"games for ±{t:g} pp"] = games_needed(seg.games, w.half_width, t)
        a = f.above[0]
        row["HP above table ± (HP)"] = round(a.half_width, 3)
        row[f"games for ±{TARGET_HP:g} HP"] = games_needed(seg.games, a.half_width, TARGET_HP)
        rows.append(row)
    if rows:
        sec.tables.append(Table("sample_size", "Games needed", pd.DataFrame(rows)))
    else:
        sec.text.append("No homogeneous field in this run: no seat figure to size.")
    return sec
