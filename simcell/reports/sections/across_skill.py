"""Verdicts across skill: each headline verdict of the run (every seat's win share against the
fair share, each card type's gap, each card out of band within its type) measured again under
each rung (RUN/rungs: the run's first deals with a homogeneous field of each rung, tools/rungs.py)
and marked **holds** (the same conclusive verdict on every rung), **skill-dependent** (two rungs
reach different conclusive verdicts: the report says which) or **inconclusive** (no rung
contradicts another, but at least one cannot decide)."""

from __future__ import annotations

import json

import pandas as pd

from simcell.reports.data import ReportError, RunData, SegmentInfo
from simcell.reports.estimates import interval_text
from simcell.reports.intervals import INCONCLUSIVE, OUT_OF_BAND, Estimate, verdict
from simcell.reports.render import Section, Table
from simcell.reports.sections.cards import card_verdict, segment_cards, segment_types
from simcell.reports.sections.seats import seat_figures, seat_name
from simcell.reports.style import pretty
from simcell.vocabulary import CARD_TYPE_LABELS

RUNGS_FOLDER = "rungs"  # inside a run directory: the run played again under each rung (tools/rungs.py)
RUNGS_FILE = "rungs.json"  # in RUNGS_FOLDER: which rung runs there are, and the rungs not played
HOLDS, SKILL_DEPENDENT = "holds", "skill-dependent"
TABLE = "across_skill"


def _signed(v: str, value: float) -> str:
    """An out-of-band verdict with its side: a seat far ahead and one far behind differ."""
    return f"{v} ({'+' if value > 0 else '−'})" if v == OUT_OF_BAND else v


def mark(verdicts: dict[str, str]) -> tuple[str, str]:
    """(holds | skill-dependent | inconclusive, how it changes) over the rungs' verdicts."""
    conclusive = {r: v for r, v in verdicts.items() if v != INCONCLUSIVE}
    if len(set(conclusive.values())) > 1:
        return SKILL_DEPENDENT, "; ".join(f"{v} under {r}" for r, v in conclusive.items())
    if len(conclusive) == len(verdicts):
        return HOLDS, ""
    return INCONCLUSIVE, "inconclusive under " + ", ".join(r for r, v in verdicts.items() if v == INCONCLUSIVE)


def _segment(run: RunData, players: int) -> SegmentInfo | None:
    return next((s for s in run.segments if s.players == players and s.field == 0), None)


def _figures(run: RunData, seg: SegmentInfo, cards: list[str]) -> dict[str, tuple[Estimate | None, str]]:
    """figure label -> (estimate, verdict) in one run's segment."""
    p = seg.players
    band = run.seat_band(p)
    bands = run.resolved["report"]["bands"]
    out = {}
    f = seat_figures(run, seg, band)
    for s in range(p):
        e = f.win_single[s].scaled(100, -100 / p)
        out[f"{seat_name(s)} win share − fair share, pp"] = (e, _signed(verdict(e, band), e.value))
    types = segment_types(run, seg, float(bands.get("card_type_pp", 1.0)))
    for _, t in types.iterrows():
        e = Estimate(t["gap_pp"], t["gap_pp_se"], 0, bounds=(t["gap_pp_low"], t["gap_pp_high"]))
        out[f"{CARD_TYPE_LABELS.get(t['type'], pretty(t['type']))} − average card, pp"] = (e, _signed(t["verdict"], t["gap_pp"]))
    c = segment_cards(run, seg, float(bands["card_open_hand_pp"]))
    c = c.assign(verdict=card_verdict(c, float(bands["card_open_hand_pp"])))
    for _, row in c[c["name"].isin(cards)].iterrows():
        e = Estimate(row["contrast_pp"], row["contrast_pp_se"], 0,
                     bounds=(row["contrast_pp_low"], row["contrast_pp_high"]))
        out[f"{row['name']} against its type, pp"] = (e, _signed(row["verdict"], row["contrast_pp"]))
    return out


def plan_of(run: RunData) -> dict | None:
    path = run.root / RUNGS_FOLDER / RUNGS_FILE
    return json.loads(path.read_text()) if path.is_file() else None


def rows(run: RunData) -> tuple[pd.DataFrame, dict | None]:
    """One row per headline verdict and player count: each rung's figure and verdict, the mark."""
    plan = plan_of(run)
    if not plan or len(plan["rungs"]) < 2:
        return pd.DataFrame(), plan
    card_band = float(run.resolved["report"]["bands"]["card_open_hand_pp"])
    out = []
    for seg in run.segments:
        if seg.field != 0 or not seg.homogeneous:
            continue
        flagged = segment_cards(run, seg, card_band)
        flagged = list(flagged.loc[flagged["flagged"], "name"])
        by_rung = {}
        for r in plan["rungs"]:
            if seg.players not in r["players"]:
                continue
            rung_run = run if r["run"] == "." else RunData(run.root / r["run"])
            rseg = _segment(rung_run, seg.players)
            if rseg is None:
                raise ReportError(f"{run.root / r['run']}: no {seg.players}-player games of the rung {r['rung']}")
            by_rung[r["rung"]] = _figures(rung_run, rseg, flagged)
        if len(by_rung) < 2:
            continue
        for label in next(iter(by_rung.values())):
            row = {"players": seg.players, "figure": label}
            verdicts = {}
            for rung, figs in by_rung.items():
                e, v = figs[label]
                row[f"{rung}_value"], row[f"{rung}_low"], row[f"{rung}_high"] = e.value, e.low, e.high
                row[f"{rung}_verdict"] = verdicts[rung] = v
            row["across_skill"], row["how"] = mark(verdicts)
            out.append(row)
    return pd.DataFrame(out), plan


def cost_text(plan: dict) -> str:
    played = [r for r in plan["rungs"] if r["run"] != "."]
    games = sum(r["games"] * len(r["players"]) for r in played)
    secs = sum(r.get("seconds", 0.0) for r in played)
    return (f"the rungs played {games:,} games in {secs:.0f} s (" + ", ".join(
        f"{r['rung']} {r['games']:,} a count" for r in played) + ")") if played else "no game beyond the run's"


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
    rungs = [r["rung"] for r in plan["rungs"]]
    own = next((r["rung"] for r in plan["rungs"] if r["run"] == "."), None)
    sec.text.append(
        f"Each headline verdict again on the run's first deals under each rung ({', '.join(rungs)}"
        f"{f'; {own} is the run itself' if own else ''}): every seat's win share, each card type "
        "against the average card and each card out of band within its type. **Holds**: the same "
        "conclusive verdict on every rung (a statement about the game); **skill-dependent**: two "
        "rungs disagree (a statement about the bots, not the game); **inconclusive**: no two rungs "
        f"disagree, but one cannot decide at its games. Cost: {cost_text(plan)}.")
    for n in plan["not_played"]:
        sec.text.append(f"Not played: {n['rung']}" + (f" at {', '.join(map(str, n['players']))} players"
                                                      if n.get("players") else "") + f" ({n['why']}).")
    shown = df[["players", "figure"]].copy()
    for r in rungs:
        if f"{r}_value" in df:
            shown[r] = [f"{interval_text(v, lo, hi, 1, True)} {verdict_word(w)}" if pd.notna(v) else ""
                        for v, lo, hi, w in zip(df[f"{r}_value"], df[f"{r}_low"], df[f"{r}_high"], df[f"{r}_verdict"])]
    shown["across skill"] = df["across_skill"]
    sec.tables.append(Table(TABLE, "Each headline verdict under each rung", df, shown,
                            note="95% intervals; the verdict against the figure's band as the Verdicts "
                                 "section defines it (out of band with its side)."))
    return sec


def verdict_word(v: str) -> str:
    return v.replace(OUT_OF_BAND, "out")


def sentence(df: pd.DataFrame | None) -> str:
    """The summary's one sentence (from the section's table): how many verdicts hold, and which
    depend on skill."""
    if df is None or df.empty:
        return "The verdicts were checked under one field, the run's own. [Verdicts across skill](#skill)."
    n = len(df)
    hold = int((df["across_skill"] == HOLDS).sum())
    dep = df[df["across_skill"] == SKILL_DEPENDENT]
    rungs = ", ".join(c.removesuffix("_verdict") for c in df.columns if c.endswith("_verdict"))
    text = (f"Across skill ({rungs}, on the run's first deals): {hold} of {n} headline verdicts hold, "
            f"{len(dep)} depend on skill, {n - hold - len(dep)} are inconclusive")
    if len(dep):
        shown = [f"{r['figure'].split(',')[0]} at {r['players']} players ({r['how']})" for _, r in dep.head(3).iterrows()]
        text += ": " + "; ".join(shown) + ("; …" if len(dep) > 3 else "")
    return text + ". [Verdicts across skill](#skill)."
