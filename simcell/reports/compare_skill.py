"""A comparison's changes across skill: when runs A and B were each played again under the same
rungs (RUN/rungs, tools/rungs.py; the rungs of A and B share their seed, so each rung's pair is
paired game by game), every seat's change of win share and each card type's change of gap is
measured under each rung and marked as the run report marks a verdict: **holds** (the same
conclusive class on every rung: moved up, moved down, or shown within the band), **skill-
dependent** (two rungs reach different conclusive classes) or **inconclusive**."""

from __future__ import annotations

import json

import pandas as pd

from simcell.reports.compare import (
    _ratio,
    card_changes,
    card_table,
    difference,
    pairing,
    segment_sums,
    type_changes,
)
from simcell.reports.data import RunData
from simcell.reports.intervals import IN_BAND, INCONCLUSIVE
from simcell.reports.sections.across_skill import RUNGS_FILE, RUNGS_FOLDER, mark

UP, DOWN = "moved up", "moved down"


def change_class(diff: float, low: float, high: float, band: float) -> str:
    """A change against its band: moved (its interval wholly outside the band, with its side),
    within the band (wholly inside), or inconclusive."""
    if low > band:
        return UP
    if high < -band:
        return DOWN
    if -band <= low and high <= band:
        return IN_BAND
    return INCONCLUSIVE


def _rungs(root) -> dict[str, str]:
    path = root / RUNGS_FOLDER / RUNGS_FILE
    if not path.is_file():
        return {}
    return {r["rung"]: r["run"] for r in json.loads(path.read_text())["rungs"]}


def _changes(a: RunData, b: RunData, named: tuple[str, ...] = ()) -> pd.DataFrame:
    """Every seat's change of win share, each type's change of gap and each `named` card's change
    of contrast against its type, with its class."""
    pair = pairing(a, b)
    bands = {k: float(v) for k, v in a.resolved["report"]["bands"].items()}
    cards = card_table(a)
    rows = []
    for seg_a, seg_b in zip(a.segments, b.segments):
        sa, _ = segment_sums(a, seg_a)
        sb, _ = segment_sums(b, seg_b)
        p, band = seg_a.players, a.seat_band(seg_a.players)
        d = difference(lambda t: _ratio(t["seat_win"], t["seat_rows"]), sa, sb, pair.paired)
        lo, hi = d.bounds()
        for s in range(p):
            name = "seat 0 (first player)" if s == 0 else f"seat {s}"
            rows.append({"players": p, "figure": f"{name}: win share", "difference": d.diff[s] * 100,
                         "low": lo[s] * 100, "high": hi[s] * 100,
                         "class": change_class(d.diff[s] * 100, lo[s] * 100, hi[s] * 100, band)})
        t = type_changes(seg_a, sa, sb, pair.paired, cards, bands["card_type_pp"])
        for r in t.itertuples():
            rows.append({"players": p, "figure": f"{r.type}: gap", "difference": r.gap_pp_diff,
                         "low": r.gap_pp_low, "high": r.gap_pp_high,
                         "class": change_class(r.gap_pp_diff, r.gap_pp_low, r.gap_pp_high, bands["card_type_pp"])})
        if named:
            c = card_changes(seg_a, sa, sb, pair.paired, cards, bands["card_open_hand_pp"])
            for r in c[c["name"].isin(named)].itertuples():
                rows.append({"players": p, "figure": f"{r.name}: against its type", "difference": r.contrast_pp_diff,
                             "low": r.contrast_pp_low, "high": r.contrast_pp_high,
                             "class": change_class(r.contrast_pp_diff, r.contrast_pp_low, r.contrast_pp_high,
                                                   bands["card_open_hand_pp"])})
    return pd.DataFrame(rows)


def across_skill(root_a, root_b, cards: tuple[str, ...] = ()) -> pd.DataFrame | None:
    """One row per change (players, figure) with each rung's difference and class and the mark,
    or None when A and B were not both played under at least two common rungs."""
    ra, rb = _rungs(root_a), _rungs(root_b)
    common = [r for r in ra if r in rb]
    if len(common) < 2:
        return None
    merged = None
    for r in common:
        a = RunData(root_a if ra[r] == "." else root_a / ra[r])
        b = RunData(root_b if rb[r] == "." else root_b / rb[r])
        part = _changes(a, b, tuple(cards)).rename(columns={c: f"{r}_{c}" for c in ("difference", "low", "high", "class")})
        merged = part if merged is None else merged.merge(part, on=["players", "figure"], how="inner")
    marks = [mark({r: row[f"{r}_class"] for r in common}) for _, row in merged.iterrows()]
    merged["across_skill"] = [m for m, _ in marks]
    merged["how"] = [h for _, h in marks]
    return merged


def marks_for(skill: pd.DataFrame | None, keys: pd.DataFrame, figure: str) -> list[str] | None:
    """The mark of each row of a compare table (players, and the seat or type named by `figure`)."""
    if skill is None:
        return None
    lookup = {(int(r.players), r.figure): r.across_skill for r in skill.itertuples()}
    return [lookup.get((int(p), f), "") for p, f in zip(keys["players"], keys[figure])]


def sentence(skill: pd.DataFrame | None) -> str:
    if skill is None:
        return ("Checked under one field: A and B were not both played again under two or more common "
                "rungs (simcell compare plays them unless --no-rungs).")
    rungs = [c.removesuffix("_class") for c in skill.columns if c.endswith("_class")]
    hold = int((skill["across_skill"] == "holds").sum())
    dep = skill[skill["across_skill"] == "skill-dependent"]
    text = (f"Across skill ({', '.join(rungs)}, each pair on the same games): {hold} of {len(skill)} "
            f"changes hold, {len(dep)} depend on skill")
    if len(dep):
        text += ": " + "; ".join(f"{r.figure} at {r.players}p ({r.how})" for r in dep.head(3).itertuples())
    return text + "."

