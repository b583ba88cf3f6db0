"""Tune's optional targets ([tune.targets]) in one run directory: the winner's HP, the game's
length in rounds and each HP source's share of all HP, per player count and field, with 95%
intervals (jackknife over blocks; the length is exact, fixed by the event deck) and a verdict
against the designer's range; how far each lies outside its range (the constraints of the board
and rules stage); and the table of every target of a tune, bands and ranges, with why one is not
met."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcell.reports.changes import PLAYER_COLUMNS, PlayerSums
from simcell.reports.data import HP_SOURCE_COLUMNS, RunData
from simcell.reports.intervals import IN_BAND, INCONCLUSIVE, OUT_OF_BAND, Estimate, jackknife_ratio
from simcell.reports.estimates import interval_text

TARGET_COLUMNS = ["players", "field", "target", "range_low", "range_high", "value", "low", "high",
                  "verdict", "outside"]


def range_verdict(est: Estimate, low: float, high: float, alpha: float = 0.05) -> str:
    """The band verdict for a range: within it when the 1 − 2α interval lies inside [low, high]
    (equivalence), outside when the 1 − α interval lies wholly beyond it, else inconclusive."""
    if not np.isfinite(est.value) or not np.isfinite(est.se):
        return INCONCLUSIVE
    tost = est.at_level(1 - 2 * alpha)
    if low <= tost.low and tost.high <= high:
        return IN_BAND
    wide = est.at_level(1 - alpha)
    return OUT_OF_BAND if wide.low > high or wide.high < low else INCONCLUSIVE


def target_label(key: str) -> str:
    if key == "winning_hp":
        return "winning HP"
    if key == "game_length":
        return "game length (rounds)"
    return f"{key.removeprefix('hp_share.')} share of HP (%)"


def target_rows(run: RunData, targets: dict) -> pd.DataFrame:
    """One row per target, player count and field: its value with a 95% interval, the range, the
    verdict, and the point estimate's distance outside the range (0 within it)."""
    wanted = [(k, r) for k, r in (("winning_hp", targets.get("winning_hp")),
                                  ("game_length", targets.get("game_length"))) if r]
    wanted += [(f"hp_share.{s}", r) for s, r in targets.get("hp_share", {}).items()]
    rows = []
    for seg in run.segments if wanted else []:
        sums = PlayerSums(seg.players, seg.blocks)
        for df in run.record_parts("players", seg, PLAYER_COLUMNS):
            sums.add(df, run.block_of_games(seg, df["game"].to_numpy()))
        t = sums.sums()
        total = sum(t[c] for c in HP_SOURCE_COLUMNS)
        for key, (lo, hi) in wanted:
            if key == "winning_hp":
                est = jackknife_ratio(t["winning_hp"], t["games"])
            elif key == "game_length":
                est = Estimate(float(run.rounds(seg.players)), 0.0, method="exact")
            else:
                est = jackknife_ratio(t[f"hp_{key.removeprefix('hp_share.')}"], total).scaled(100)
            rows.append({"players": seg.players, "field": seg.field_name, "target": target_label(key),
                         "range_low": lo, "range_high": hi, "value": est.value, "low": est.low,
                         "high": est.high, "verdict": range_verdict(est, lo, hi),
                         "outside": max(lo - est.value, est.value - hi, 0.0)})
    return pd.DataFrame(rows, columns=TARGET_COLUMNS)


def _count(state: pd.DataFrame) -> str:
    n = {v: int((state["verdict"] == v).sum()) for v in (IN_BAND, INCONCLUSIVE, OUT_OF_BAND)}
    return f"{n[IN_BAND]} in band, {n[INCONCLUSIVE]} inconclusive, {n[OUT_OF_BAND]} out"


def _met(verdict: str) -> str:
    return {IN_BAND: "met", OUT_OF_BAND: "not met"}.get(verdict, INCONCLUSIVE)


def every_target(plan: dict, cards: tuple[pd.DataFrame, pd.DataFrame], seats: tuple[list, list],
                 optional: tuple[pd.DataFrame, pd.DataFrame], band: float,
                 types: tuple[pd.DataFrame, pd.DataFrame] | None = None, band_types: float = 1.0) -> pd.DataFrame:
    """Every target of a tune at every player count, in the original and the tuned set on the
    holdout, the tuned set's verdict (met, not met, inconclusive) and, for a target not met, why
    and the best the search found: the cards out of band and whether the space could reach them,
    the board and rules stage's best worst seat and targets, or that the space could not search
    them (no board value or rule switch in it). The card types' gaps (`types`, the report's type
    verdicts) are a target whether or not the tune stepped them: a tune that did not says so."""
    unreachable, rounds = set(plan["unreachable"]), len(plan["rounds"])
    board = plan.get("board", {"trials": []})
    searched = bool(board["trials"])
    rows = []
    (before, after), (seats_a, seats_b), (opt_a, opt_b) = cards, seats, optional
    def fielded(t: pd.DataFrame) -> pd.DataFrame:  # each figure under each field a tune plays
        return t if "field" in t else t.assign(field="")

    before, after = fielded(before), fielded(after)
    for (p, f), b in after.groupby(["players", "field"], sort=True):
        a = before[(before["players"] == p) & (before["field"] == f)]
        out = b[b["verdict"] == OUT_OF_BAND]
        verdict = OUT_OF_BAND if len(out) else (IN_BAND if (b["verdict"] == IN_BAND).all() else INCONCLUSIVE)
        groups: dict[str, list[str]] = {}
        for r in out.itertuples():
            reason = (f"beyond any value within ±{plan['space']['range']} as predicted" if r.name in unreachable
                      else "not in the space" if r.name not in plan["space"]["cards"]
                      else f"not settled in {rounds} round{'s' if rounds != 1 else ''}")
            groups.setdefault(reason, []).append(f"{r.name} {r.contrast_pp:+.2f}")
        why = "; ".join(f"{reason}: {', '.join(names)} pp" for reason, names in groups.items())
        rows.append({"players": p, "field": f, "target": f"every card's contrast within ±{band:g} pp",
                     "original": _count(a), "tuned": _count(b), "verdict": _met(verdict), "why not, best found": why})
    types = None if types is None else (fielded(types[0]), fielded(types[1]))
    for (p, f), b in types[1].groupby(["players", "field"], sort=True) if types is not None else []:
        a = types[0][(types[0]["players"] == p) & (types[0]["field"] == f)]
        out = b[b["verdict"] == OUT_OF_BAND]
        verdict = OUT_OF_BAND if len(out) else (IN_BAND if (b["verdict"] == IN_BAND).all() else INCONCLUSIVE)
        why = ""
        if len(out):
            names = ", ".join(f"{r.type} {r.gap_pp:+.2f}" for r in out.itertuples())
            why = (f"not settled in {rounds} round{'s' if rounds != 1 else ''}: {names} pp"
                   if plan["space"].get("types") else
                   f"not searched ([tune] types = true, or --types, steps whole types): {names} pp")
        rows.append({"players": p, "field": f, "target": f"every card type's gap against the average card within ±{band_types:g} pp",
                     "original": _count(a), "tuned": _count(b), "verdict": _met(verdict), "why not, best found": why})
    for (sa, sb) in zip(seats_a, seats_b):
        why = ""
        if sb["verdict"] == OUT_OF_BAND:
            fairest = min((t["worst_seat_pp"] for t in board["trials"]), default=float("inf"))
            why = (f"the board and rules stage's best: {board['after']:.1f} pp from the fair share (worst seat, "
                   f"{len(board['trials'])} assignments on the search's games"
                   + (f"; the fairest, {fairest:.1f} pp, missed the other targets" if fairest < board["after"] else "")
                   + ")" if searched else "no board value or rule switch in the space ([tune] board, rules)")
        rows.append({"players": sb["players"], "field": sb.get("field", ""), "target": "every seat's win share within the band",
                     "original": f"{sa['worst seat']} {sa['distance_pp']:+.1f} pp",
                     "tuned": f"{sb['worst seat']} {sb['distance_pp']:+.1f} pp",
                     "verdict": _met(sb["verdict"]), "why not, best found": why})
    for ra, rb in zip(opt_a.itertuples(), opt_b.itertuples()):
        why = ""
        if rb.verdict == OUT_OF_BAND:
            why = (f"the board and rules stage's best: the targets {board['outside_after']:.2f} range widths "
                   f"outside their ranges in all (from {board['outside_before']:.2f})"
                   if searched and "outside_after" in board
                   else "not searched: card values are tuned for the bands; board values and rule "
                        "switches ([tune] board, rules) search these")
        rows.append({"players": rb.players, "field": getattr(rb, "field", ""), "target": f"{rb.target} within [{rb.range_low:g}, {rb.range_high:g}]",
                     "original": interval_text(ra.value, ra.low, ra.high),
                     "tuned": interval_text(rb.value, rb.low, rb.high),
                     "verdict": _met(rb.verdict), "why not, best found": why})
    out = pd.DataFrame(rows).sort_values(["players"], kind="stable").reset_index(drop=True)
    # the field is named only where a tune played several (a tune over rungs)
    return out if out["field"].nunique() > 1 else out.drop(columns=["field"])
