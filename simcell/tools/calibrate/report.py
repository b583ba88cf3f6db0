"""`simcell calibrate`: the measured ATP equivalent (docs/method.md §13). For each
player count, what +1 starting ATP for one player is worth in win share (pp) and in HP above
the table: each seat in turn given one more ATP, on the same games as the config as it is, its
paired gain averaged over the seats and jackknifed over the shared blocks. calibration.json
holds the figures; compare and sweep reports given `--calibration DIR` state effects in ATP."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from simcell.reports.changes import segment_sums
from simcell.reports.data import RunData
from simcell.vocabulary import CALIBRATION_FILE
from simcell.reports.paired import jackknife_many
from simcell.reports.render import Report, Section, Table, write_report
from simcell.reports.estimates import interval_text
from simcell.vocabulary import CALIBRATE_FILE



def _ratio(n, d):
    with np.errstate(invalid="ignore", divide="ignore"):
        return n / d


def build_calibration(folder: Path) -> Path:
    """From calibrate.json ({"baseline": run, "seats": [run of seat 0 + 1 ATP, ...]}): write
    calibration.json and the report."""
    plan = json.loads((folder / CALIBRATE_FILE).read_text())
    base = RunData(folder / plan["baseline"])
    plus = [RunData(folder / r) for r in plan["seats"]]
    rows = []
    for si, seg in enumerate(base.segments):
        p = seg.players
        sums = [segment_sums(base, seg)[0]] + [segment_sums(r, r.segments[si])[0] for r in plus[:p]]

        def gain(totals, p=p):
            b = totals[0]
            win = [(_ratio(t["seat_win"][s], t["seat_rows"][s]) - _ratio(b["seat_win"][s], b["seat_rows"][s]))
                   for s, t in enumerate(totals[1:])]
            hp = [(_ratio(t["seat_above"][s], t["seat_rows"][s]) - _ratio(b["seat_above"][s], b["seat_rows"][s]))
                  for s, t in enumerate(totals[1:])]
            return np.array([np.mean(win) * 100, np.mean(hp)])

        value, se, df = jackknife_many(gain, sums)
        q = stats.t.ppf(0.975, max(df, 1))
        rows.append({"players": p, "field": seg.field_name, "win_pp_per_atp": value[0],
                     "win_pp_per_atp_se": se[0], "hp_per_atp": value[1], "hp_per_atp_se": se[1],
                     "df": df, "games": seg.games,
                     "win_low": value[0] - q * se[0], "win_high": value[0] + q * se[0],
                     "hp_low": value[1] - q * se[1], "hp_high": value[1] + q * se[1]})
    table = pd.DataFrame(rows)
    (folder / CALIBRATION_FILE).write_text(json.dumps({"config": plan["config"], "seed": base.seed,
                                                        "rows": rows}, indent=1))
    sec = Section("calibration", "The ATP equivalent, measured")
    sec.text.append(
        f"What one more starting ATP for one player is worth, per player count: each seat in turn "
        f"given +1 ATP on the same {base.meta['games']:,} games as the config as it is "
        f"(seed {base.seed}), the paired gain in win share and in HP above the table averaged over "
        "the seats, with 95% intervals (jackknife over the shared blocks). Give this folder to "
        "`simcell compare` or `simcell sweep` with `--calibration` to read effects in ATP.")
    shown = table[["players", "field"]].assign(**{
        "win share per ATP, pp": [interval_text(v, lo, hi, 2, True) for v, lo, hi in
                                  zip(table["win_pp_per_atp"], table["win_low"], table["win_high"])],
        "HP above the table per ATP": [interval_text(v, lo, hi, 3, True) for v, lo, hi in
                                       zip(table["hp_per_atp"], table["hp_low"], table["hp_high"])]})
    sec.tables.append(Table("calibration", "ATP equivalent by player count", table, shown))
    write_report(Report("simcell calibrate: the ATP equivalent", [sec]), folder)
    return folder
