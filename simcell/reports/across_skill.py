"""Verdicts across skill: a finding is about the game only if it holds under stronger or
independently fitted play. A run's rungs (RUN/rungs: its first deals played again with a
homogeneous field of each rung, tools/rungs) give each headline verdict of the run (every seat's
win share against the fair share, each card type's gap, each card out of band within its type)
once per rung, and each is marked **holds** (the same conclusive verdict on every rung),
**skill-dependent** (two rungs reach different conclusive verdicts: the report says which) or
**inconclusive** (no rung contradicts another, but at least one cannot decide). When runs A and
B were each played under the same rungs (the rungs of A and B share their seed, so each rung's
pair is paired game by game), a comparison's changes (each seat's win share, each type's gap,
named cards' contrasts) are marked the same way over their classes: moved up, moved down, within
the band."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from simcell.reports.card_table import card_table, card_verdict, segment_cards, segment_types
from simcell.reports.changes import card_changes, change_class, pairing, ratio, segment_sums, type_changes
from simcell.reports.data import ReportError, RunData, SegmentInfo
from simcell.reports.intervals import INCONCLUSIVE, OUT_OF_BAND, Estimate, verdict
from simcell.reports.paired import difference
from simcell.reports.seat_table import seat_figures, seat_name
from simcell.reports.style import pretty
from simcell.vocabulary import CARD_TYPE_LABELS, RUNGS_FILE, RUNGS_FOLDER


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


def sizes_apart(figures: dict[str, tuple[Estimate, str, float, Estimate]]) -> str:
    """For a verdict no two rungs contradict: the first pair of rungs whose figures differ by
    more than the figure's band, read from the intervals its verdicts are read from (the rungs
    play different bots, so their figures are independent estimates: the difference's half
    width is the root sum of squares), as the mark's words; "" when none does. A finding whose
    size moves by more than its band between two rungs is about the bots whatever each rung's
    own verdict, as compare's "moved" is about a change."""
    names = list(figures)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            (_, _, band, da), (_, _, _, db) = figures[a], figures[b]
            half = np.hypot((da.high - da.low) / 2, (db.high - db.low) / 2)
            gap = da.value - db.value
            if np.isfinite(half) and abs(gap) - half > band:
                return (f"{da.value:+.1f} pp under {a}, {db.value:+.1f} under {b}: "
                        f"{abs(gap):.1f} pp apart (more than the ±{band:g} band beyond their intervals)")
    return ""


def _segment(run: RunData, players: int) -> SegmentInfo | None:
    return next((s for s in run.segments if s.players == players and s.field == 0), None)


EDGE_HALF_WIDTH = 0.5  # pp: an undecided verdict this precise sits on its band's edge


def _figures(run: RunData, seg: SegmentInfo, cards: list[str]) -> dict[str, tuple[Estimate, str, float, Estimate]]:
    """figure label -> (its 95% estimate, verdict, band, the interval the verdict is read from:
    the seats' own, the types' and cards' simultaneous ones) in one run's segment."""
    p = seg.players
    band = run.seat_band(p)
    bands = run.resolved["report"]["bands"]
    type_band, card_band = float(bands.get("card_type_pp", 1.0)), float(bands["card_open_hand_pp"])
    out = {}
    f = seat_figures(run, seg, band)
    for s in range(p):
        e = f.win_single[s].scaled(100, -100 / p)
        out[f"{seat_name(s)} win share − fair share, pp"] = (e, _signed(verdict(e, band), e.value), band, e)
    types = segment_types(run, seg, type_band)
    for _, t in types.iterrows():
        e = Estimate(t["gap_pp"], t["gap_pp_se"], 0, bounds=(t["gap_pp_low"], t["gap_pp_high"]))
        decision = Estimate(t["gap_pp"], t["gap_pp_se"], 0, bounds=(t["gap_pp_sim_low"], t["gap_pp_sim_high"]))
        out[f"{CARD_TYPE_LABELS.get(t['type'], pretty(t['type']))} − average card, pp"] = (
            e, _signed(t["verdict"], t["gap_pp"]), type_band, decision)
    c = segment_cards(run, seg, card_band)
    c = c.assign(verdict=card_verdict(c, card_band))
    for _, row in c[c["name"].isin(cards)].iterrows():
        e = Estimate(row["contrast_pp"], row["contrast_pp_se"], 0,
                     bounds=(row["contrast_pp_low"], row["contrast_pp_high"]))
        decision = Estimate(row["contrast_pp"], row["contrast_pp_se"], 0,
                            bounds=(row["contrast_sim_low"], row["contrast_sim_high"]))
        out[f"{row['name']} against its type, pp"] = (
            e, _signed(row["verdict"], row["contrast_pp"]), card_band, decision)
    return out


def games_to_settle(e: Estimate, decision: Estimate, band: float, games: int) -> float:
    """Games (at this player count, in all) after which a figure like this one would be settled
    against its band: the interval its verdict is read from (`decision`) narrower than its
    distance from the band's edge; an interval shrinks as 1/sqrt(games). inf when it sits on the
    edge: its 95% interval (`e`) already narrower than 2 x EDGE_HALF_WIDTH, or its value on the
    edge itself."""
    half = (e.high - e.low) / 2
    decide = (decision.high - decision.low) / 2
    distance = abs(abs(e.value) - band)
    if not np.isfinite(half) or half < EDGE_HALF_WIDTH or distance <= 0:
        return float("inf")
    return games * max(decide / distance, 1.0) ** 2


def _left_to_settle(row: dict, by_rung: dict, label: str, games: dict[str, tuple[int, float]]) -> str:
    """For an inconclusive verdict: each undecided rung's games (and minutes) to settle it, or
    that it sits on the band's edge."""
    parts, edge = [], []
    for rung, figs in by_rung.items():
        e, v, band, decision = figs[label]
        if v != INCONCLUSIVE:
            continue
        n, seconds = games[rung]
        need = games_to_settle(e, decision, band, n)
        row[f"{rung}_games_to_settle"] = need
        if not np.isfinite(need):
            edge.append(rung)
        elif need <= n:
            # its interval already clears the edge: the card screen's q-value (over every card)
            # is what still holds it back, and a few more games settle it
            parts.append(f"{rung} a few more games (its interval already clears the band's edge)")
        else:
            more = need - n
            minutes = more * seconds / n / 60 if n and seconds else float("nan")
            parts.append(f"{rung} ~{_round(more)} more games" + (f" (~{_minutes(minutes)})" if minutes == minutes else ""))
    if edge:
        parts.append(f"on the band's edge under {', '.join(edge)} (no number of games settles it)")
    return "; ".join(parts)


def _round(n: float) -> str:
    digits = max(0, len(str(int(n))) - 2)
    return f"{int(round(n, -digits)):,}"


def _minutes(m: float) -> str:
    return f"{m * 60:.0f} s" if m < 1 else f"{m:.0f} min" if m < 120 else f"{m / 60:.0f} h"


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
        by_rung, games = {}, {}
        for r in plan["rungs"]:
            if seg.players not in r["players"]:
                continue
            rung_run = run if r["run"] == "." else RunData(run.root / r["run"])
            rseg = _segment(rung_run, seg.players)
            if rseg is None:
                raise ReportError(f"{run.root / r['run']}: no {seg.players}-player games of the rung {r['rung']}")
            by_rung[r["rung"]] = _figures(rung_run, rseg, flagged)
            # the rung's games at this count and its seconds a count (the run's own: its play time)
            seconds = r.get("seconds") or _seconds_of(rung_run)
            games[r["rung"]] = (rseg.games, seconds / max(len(r["players"]), 1))
        if len(by_rung) < 2:
            continue
        for label in next(iter(by_rung.values())):
            row = {"players": seg.players, "figure": label}
            verdicts = {}
            for rung, figs in by_rung.items():
                e, v, _band, _decision = figs[label]
                row[f"{rung}_value"], row[f"{rung}_low"], row[f"{rung}_high"] = e.value, e.low, e.high
                row[f"{rung}_verdict"] = verdicts[rung] = v
            row["across_skill"], row["how"] = mark(verdicts)
            if row["across_skill"] == INCONCLUSIVE:
                apart = sizes_apart({r: figs[label] for r, figs in by_rung.items()})
                if apart:
                    row["across_skill"], row["how"] = SKILL_DEPENDENT, apart
            row["to_settle"] = (_left_to_settle(row, by_rung, label, games)
                                if row["across_skill"] == INCONCLUSIVE else "")
            out.append(row)
    return pd.DataFrame(out), plan


def _seconds_of(run: RunData) -> float:
    return float(sum(i.get("seconds", 0.0) for i in run.meta.get("invocations", [])))


def cost_text(plan: dict) -> str:
    played = [r for r in plan["rungs"] if r["run"] != "."]
    games = sum(r["games"] * len(r["players"]) for r in played)
    secs = sum(r.get("seconds", 0.0) for r in played)
    text = (f"the rungs played {games:,} games in {secs:.0f} s (" + ", ".join(
        f"{r['rung']} {r['games']:,} a count" for r in played) + ")") if played else "no game beyond the run's"
    same = [r for r in plan["rungs"] if r.get("identical")]
    if same:
        text += "; " + "; ".join(
            f"{r['rung']} at {', '.join(map(str, r['players']))} players plays the run's own field, "
            "worth for worth: its verdicts there are the run's, not replayed" for r in same)
    return text


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
    undecided = df[df["across_skill"] == INCONCLUSIVE] if "to_settle" in df else df.iloc[:0]
    if len(undecided):
        edge = int(undecided["to_settle"].str.contains("band's edge").sum())
        need = [c for c in df.columns if c.endswith("_games_to_settle")]
        worst = {c.removesuffix("_games_to_settle"): undecided[c].replace(np.inf, np.nan).max() for c in need}
        worst = {r: g for r, g in worst.items() if g == g}
        text += (f" ({edge} on the band's edge" + ("; the rest settle at about " + ", ".join(
            f"{_round(g)} {r} games a count" for r, g in worst.items()) if worst else "") + ")")
    return text + ". [Verdicts across skill](#skill)."


def _rungs(root) -> dict[str, str]:
    path = root / RUNGS_FOLDER / RUNGS_FILE
    if not path.is_file():
        return {}
    return {r["rung"]: r["run"] for r in json.loads(path.read_text())["rungs"]}


def _changes_under_rung(a: RunData, b: RunData, named: tuple[str, ...] = (),
                        unpaired: bool = False) -> pd.DataFrame:
    """Every seat's change of win share, each type's change of gap and each `named` card's change
    of contrast against its type, with its class (`unpaired`: as compare --unpaired)."""
    pair = pairing(a, b, unpaired)
    bands = {k: float(v) for k, v in a.resolved["report"]["bands"].items()}
    cards = card_table(a)
    rows = []
    for seg_a, seg_b in zip(a.segments, b.segments):
        sa, _ = segment_sums(a, seg_a)
        sb, _ = segment_sums(b, seg_b)
        p, band = seg_a.players, a.seat_band(seg_a.players)
        d = difference(lambda t: ratio(t["seat_win"], t["seat_rows"]), sa, sb, pair.paired)
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
    return pd.DataFrame(rows).assign(paired=pair.paired)


def changes_across_skill(root_a, root_b, cards: tuple[str, ...] = (),
                         unpaired: bool = False) -> pd.DataFrame | None:
    """One row per change (players, figure) with each rung's difference and class and the mark,
    or None when A and B were not both played under at least two common rungs. `unpaired`: runs
    on different seeds compared unpaired under every rung, as asked for the runs themselves."""
    ra, rb = _rungs(root_a), _rungs(root_b)
    common = [r for r in ra if r in rb]
    if len(common) < 2:
        return None
    merged = None
    for r in common:
        a = RunData(root_a if ra[r] == "." else root_a / ra[r])
        b = RunData(root_b if rb[r] == "." else root_b / rb[r])
        part = _changes_under_rung(a, b, tuple(cards), unpaired).rename(columns={c: f"{r}_{c}" for c in ("difference", "low", "high", "class")})
        merged = part if merged is None else merged.merge(part, on=["players", "figure", "paired"], how="inner")
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


def changes_sentence(skill: pd.DataFrame | None) -> str:
    if skill is None:
        return ("Checked under one field: A and B were not both played again under two or more common "
                "rungs (simcell compare plays them unless --no-rungs).")
    rungs = [c.removesuffix("_class") for c in skill.columns if c.endswith("_class")]
    hold = int((skill["across_skill"] == "holds").sum())
    dep = skill[skill["across_skill"] == "skill-dependent"]
    how = ("each pair on the same games" if "paired" not in skill or skill["paired"].all() else
           "unpaired as asked: each rung's runs on different seeds, their variances added")
    text = (f"Across skill ({', '.join(rungs)}, {how}): {hold} of {len(skill)} "
            f"changes hold, {len(dep)} depend on skill")
    if len(dep):
        text += ": " + "; ".join(f"{r.figure} at {r.players}p ({r.how})" for r in dep.head(3).itertuples())
    return text + "."
