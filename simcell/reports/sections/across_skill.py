"""The report's Verdicts across skill section: each headline verdict under each rung, and the
mark over them (the figures and marks: reports/across_skill.py)."""

from __future__ import annotations

import pandas as pd

from simcell.reports.across_skill import (EDGE_HALF_WIDTH, HOLDS, SKILL_DEPENDENT, TABLE, cost_text, rows,
                                         verdict_word)
from simcell.reports.data import RunData
from simcell.reports.estimates import interval_text
from simcell.reports.intervals import INCONCLUSIVE, OUT_OF_BAND
from simcell.reports.render import Section, Table


def build(run: RunData) -> Section:
    sec = Section("skill", "Verdicts across skill")
    df, plan = rows(run)
    if df.empty:
        why = ("the run's config names no rungs ([report] rungs = [])" if not run.resolved["report"].get("rungs")
               else "they were not played (simcell run --no-rungs, or a run of a designer tool)"
               if plan is None else "; ".join(f"{n['rung']}: {n['why']}" for n in plan["not_played"])
               or "only one rung was played")
        sec.text.append(f"These verdicts were checked under one field, the run's own: {why}.")
        return sec
    rungs = list(dict.fromkeys(r["rung"] for r in plan["rungs"]))
    own = next((r["rung"] for r in plan["rungs"] if r["run"] == "." and not r.get("identical")), None)
    sec.text.append(
        f"Each headline verdict again on the run's first deals under each rung ({', '.join(rungs)}"
        f"{f'; {own} is the run itself' if own else ''}): every seat's win share, each card type "
        "against the average card and each card out of band within its type. **Holds**: the same "
        "conclusive verdict on every rung (a statement about the game); **skill-dependent**: two "
        "rungs disagree, or their figures lie further apart than the band beyond their intervals "
        "(a statement about the bots, not the game); **inconclusive**: no two rungs disagree, but "
        f"one cannot decide at its games. Cost: {cost_text(plan)}.")
    undecided = df[df["across_skill"] == INCONCLUSIVE]
    if len(undecided):
        edge = undecided["to_settle"].str.contains("band's edge")
        sec.text.append(
            f"What is left: each inconclusive verdict says how many more games (and about how long, "
            f"at this machine's speed for the rung) would settle it, its interval then narrower "
            f"than its distance from the band's edge; or that it sits on the band's edge (its "
            f"interval already narrower than {2 * EDGE_HALF_WIDTH:g} pp), where more games will not: "
            f"{int(edge.sum())} of the {len(undecided)} inconclusive verdicts.")
    for n in plan["not_played"]:
        sec.text.append(f"Not played: {n['rung']}" + (f" at {', '.join(map(str, n['players']))} players"
                                                      if n.get("players") else "") + f" ({n['why']}).")
    shown = df[["players", "figure"]].copy()
    for r in rungs:
        if f"{r}_value" in df:
            shown[r] = [f"{interval_text(v, lo, hi, 1, True)} {verdict_word(w)}" if pd.notna(v) else ""
                        for v, lo, hi, w in zip(df[f"{r}_value"], df[f"{r}_low"], df[f"{r}_high"], df[f"{r}_verdict"])]
    shown["across skill"] = [f"{m}: {h}" if m == SKILL_DEPENDENT and "apart" in h else m
                             for m, h in zip(df["across_skill"], df["how"])]
    shown["to settle"] = df["to_settle"]
    # printed: the verdicts out of band under some rung (holding, or depending on the bots); those
    # out of band under none (in band, or in band where not undecided) are folded beneath and in
    # the CSV: at 2-5 players with a search rung's few games they filled four pages
    verdicts = df[[c for c in df.columns if c.endswith("_verdict")]]
    found = verdicts.apply(lambda col: col.astype(str).str.startswith(OUT_OF_BAND)).any(axis=1) | (
        df["across_skill"] == SKILL_DEPENDENT)
    quiet = df[~found]
    several = df["players"].nunique() > 1
    sec.tables.append(Table(TABLE, "The verdicts out of band under some rung"
                            + (", at each player count" if several else ""), df,
                            by_count(df, list(dict.fromkeys(df.loc[found, "figure"]))) if several
                            else shown[found].loc[:, lambda t: [c for c in t.columns
                                                                if c != "to settle" or t[c].ne("").any()]],
                            rest=shown if several else shown[~found],
                            rest_title=("every verdict under each rung, with its interval" if several
                                        else "the verdicts out of band under no rung"),
                            note=f"95% intervals; the verdict against the figure's band as the Verdicts "
                                 f"section defines it (out of band with its side). {len(quiet)} of "
                                 f"{len(df)} verdicts are out of band under no rung "
                                 f"({int((quiet['across_skill'] == HOLDS).sum())} hold in band, "
                                 f"{int((quiet['across_skill'] != HOLDS).sum())} undecided under some "
                                 f"rung): folded below on screen, in `tables/{TABLE}.csv`."
                                 + (" A cell: the mark at that player count and, where it holds, the "
                                    "verdict; '—': not a headline verdict there (a card is checked where "
                                    "the run's own bots put it out of band)." if several else "")))
    return sec


def by_count(df: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """One row per verdict named, a column per player count: its mark there, with the verdict
    where it holds (the intervals are in the folded table and the CSV)."""
    def cell(r) -> str:
        if r["across_skill"] == HOLDS:
            first = next(c for c in r.index if c.endswith("_verdict"))
            return f"holds: {verdict_word(r[first])}"
        return "depends on the bots" if r["across_skill"] == SKILL_DEPENDENT else "undecided"

    out = pd.DataFrame({"verdict": names})
    for p, part in df.groupby("players", sort=True):
        marks = {r["figure"]: cell(r) for _, r in part.iterrows()}
        out[f"{p}p"] = [marks.get(n, "—") for n in names]
    return out


