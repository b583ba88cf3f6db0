"""`simcell tune`: what the tuner reads from its runs, and its report. `card_state` gives each
card's contrast against its type (and its verdict) in one run; `effect_changes` each card's
paired change of opening-hand effect between two runs on the same games (the response the tuner
steps by). The report: the changes proposed, the search's rounds, and the original and tuned
sets compared on fresh seeds (the holdout) with every target's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports.changes import card_changes, segment_sums
from simcell.reports.data import RunData
from simcell.reports.estimates import ci_text
from simcell.reports.intervals import IN_BAND, INCONCLUSIVE, OUT_OF_BAND
from simcell.reports.render import Figure, Report, Section, Table, png_bytes, write_report
from simcell.reports.card_table import card_table
from simcell.reports.card_table import card_verdict, segment_cards, segment_types
from simcell.reports.seat_table import worst_seat
from simcell.tools.tune.targets import every_target, target_rows
from simcell.reports.style import TYPE_COLOURS, figure
from simcell.vocabulary import ADDITIONAL_RESOURCE, CARD_TYPES
from simcell.vocabulary import TUNE_FILE

ADDITIONAL_RESOURCE_TYPE = CARD_TYPES[ADDITIONAL_RESOURCE]  # gains, not HP: no gap to tune


def card_band(run: RunData) -> float:
    return float(run.resolved["report"]["bands"]["card_open_hand_pp"])


def type_band(run: RunData) -> float:
    return float(run.resolved["report"]["bands"].get("card_type_pp", 1.0))


def type_state(root: Path) -> pd.DataFrame:
    """Per player count and card type: its gap against the average card (pp, 95% interval) and
    the run report's verdict against the type band."""
    run = RunData(root)
    band = type_band(run)
    rows = [segment_types(run, seg, band) for seg in run.segments]
    out = pd.concat(rows, ignore_index=True)
    return out[out["type"] != ADDITIONAL_RESOURCE_TYPE].reset_index(drop=True)


def card_state(root: Path) -> pd.DataFrame:
    """Per player count and card: its contrast against its type (pp, 95% interval) and its
    verdict against the card band (the report's: simultaneous intervals, out of band only when
    flagged)."""
    run = RunData(root)
    band = card_band(run)
    parts = []
    for seg in run.segments:
        c = segment_cards(run, seg, band)
        parts.append(c[["players", "field", "name", "type", "contrast_pp", "contrast_pp_low", "contrast_pp_high",
                        "contrast_pp_se"]].assign(verdict=card_verdict(c, band)))
    return pd.concat(parts, ignore_index=True)


def effect_changes(root_a: Path, root_b: Path) -> pd.DataFrame:
    """Per player count and card: B's opening-hand effect minus A's (pp), paired game by game."""
    a, b = RunData(root_a), RunData(root_b)
    cards = card_table(a)
    parts = []
    for sa, sb in zip(a.segments, b.segments):
        c = card_changes(sa, segment_sums(a, sa)[0], segment_sums(b, sb)[0], True, cards, card_band(a))
        parts.append(c[["players", "name", "type", "open_hand_win_pp_diff"]])
    return pd.concat(parts, ignore_index=True)


def objective(state: pd.DataFrame, band: float, types: pd.DataFrame | None = None,
              band_types: float = 1.0) -> float:
    """The search's objective: the summed distance (pp) of the cards' contrasts beyond the band,
    and (when the tune steps types) of the types' gaps beyond theirs; with several fields (a tune
    over rungs), that of the field furthest beyond."""
    def one(cards: pd.DataFrame, gaps: pd.DataFrame | None) -> float:
        out = float(np.clip(cards["contrast_pp"].abs() - band, 0, None).sum())
        return out if gaps is None else out + float(np.clip(gaps["gap_pp"].abs() - band_types, 0, None).sum())

    fields = state["field"].unique() if "field" in state else [None]
    return max(one(state if f is None else state[state["field"] == f],
                   None if types is None or f is None else types[types["field"] == f]) for f in fields)


def _counts(state: pd.DataFrame) -> dict:
    return {v: int((state["verdict"] == v).sum()) for v in (IN_BAND, INCONCLUSIVE, OUT_OF_BAND)}


def build_tune(folder: Path) -> Path:
    """The tune report from tune.json: the changes, the rounds, and the holdout comparison of the
    original (compare/a) and tuned (compare/b) sets."""
    plan = json.loads((folder / TUNE_FILE).read_text())
    run_a = RunData(folder / plan["holdout"]["a"])
    changes = pd.DataFrame(plan["changes"], columns=["card", "type", "field", "from", "to"])
    sec = _changes_section(plan, run_a, changes)
    hold = _holdout_section(plan, folder, run_a, changes)
    write_report(Report("simcell tune: card values toward the bands", [sec, hold]), folder)
    return folder


def _changes_section(plan: dict, run_a: RunData, changes: pd.DataFrame) -> Section:
    """The values proposed, how the search found them and what it cost."""
    band = card_band(run_a)
    sec = Section("tune", "Proposed changes", figures_first=True)
    sec.text.append(
        f"{len(changes)} value{'s' if len(changes) != 1 else ''} changed, searched over "
        f"{len(plan['space']['cards'])} cards' {', '.join(plan['space']['fields'])} (at most "
        f"±{plan['space']['range']} each) toward every card's contrast against its type within "
        f"±{band:g} pp; fewest changed values first, then the smallest steps. "
        f"{plan['games_played']:,} games in {len(plan['rounds'])} rounds and "
        f"{len(plan['responses'])} response runs, then both sets compared on fresh seeds "
        f"(seed {run_a.seed}, {run_a.meta['games']:,} games): [the comparison](compare/report.html).")
    if plan["space"].get("rungs"):
        names = [f["name"] for f in run_a.resolved["fields"]]
        sec.text.append(f"Every run played {len(names)} fields on the same games ({', '.join(names)}: "
                        f"the config's and the rungs {', '.join(plan['space']['rungs'])}); each card was "
                        "stepped by the value whose worst predicted contrast over the fields and player "
                        "counts is smallest, and the objective is that of the field furthest beyond the "
                        "band. The holdout gives each field's verdicts.")
    sec.tables.append(Table("tune_changes", "Changes (card, field, from → to)", changes))
    steps = plan.get("type_steps", [])
    if plan["space"].get("types"):
        sec.text.append(
            "Card types were stepped as wholes toward their gap against the average card within "
            f"±{type_band(run_a):g} pp: "
            + ("; ".join(f"every {t} card's {f} {d:+d}" for t, f, d in steps) if steps else "none needed a step")
            + " (each such card is listed in the changes, with any step of its own).")
    budget = plan.get("budget", {})
    if budget.get("left out"):
        sec.text.append(f"The budget ({budget['games'] or '-'} games, {budget['minutes'] or '-'} min) "
                        f"was spent before: {', '.join(budget['left out'])}; the holdout still ran.")
    board = plan.get("board", {"values": [], "trials": []})
    if board["trials"]:
        kept = board["values"]
        within = ("outside_before" in board and plan.get("targets")
                  and f"; the targets' summed distance outside their ranges (in range widths) {board['outside_before']:.2f} as "
                      f"they are, {board['outside_after']:.2f} kept") or ""
        sec.text.append(
            f"Board values and rule switches searched for the seats ({len(board['trials'])} assignments tried "
            f"on the first round's games; the worst seat's distance from the fair share over the player "
            f"counts{', within the targets first' if within else ''}): "
            + (f"{board['before']:.1f} pp as they are, {board['after']:.1f} pp with "
               + ", ".join(f"{k} {json.dumps(a)} → {json.dumps(b)}" for k, a, b in kept)
               if kept else f"no assignment beat the current values ({board['before']:.1f} pp); none changed")
            + within + ".")
        sec.tables.append(Table("tune_board", "Board values and rule switches (key, from → to)",
                                pd.DataFrame([[k, json.dumps(a), json.dumps(b)] for k, a, b in kept],
                                             columns=["key", "from", "to"])))
    again = plan.get("second_pass")
    if again:
        sec.text.append(
            f"The cards' rounds then ran again under the kept board and rule values (the second pass): "
            f"{again['second pass, pp']:.1f} pp beyond the band against {again['first pass, pp']:.1f} with the "
            f"first pass's values, on {again['games']:,} games per player count; "
            + ("its changes are kept." if again["kept"] else "its changes are not kept, the first pass's are."))
    pruned = plan.get("pruned", [])
    if pruned:
        sec.text.append(
            f"{len(pruned)} further change{'s were' if len(pruned) != 1 else ' was'} found in the rounds "
            "and then reverted, the set within the band without them (the prune, on the last round's "
            "games): " + ", ".join(f"{c}.{f} {a} → {b}" for c, _t, f, a, b in pruned) + ".")
    rounds = pd.DataFrame(plan["rounds"])
    if "seconds" in plan:
        stages = pd.DataFrame({"stage": list(plan["seconds"]), "seconds": list(plan["seconds"].values())})
        sec.tables.append(Table("tune_time", f"Time by stage ({plan['runs']} search runs, "
                                f"{plan['games_played']:,} games before the holdout)", stages))
    sec.tables.append(Table("tune_rounds", "The search, round by round", rounds,
                            note="Each round plays the current set on the search seed, measures every "
                                 "card, and steps the cards out of band by the measured response per "
                                 "unit of the field; the games double each round."))
    return sec


def _holdout_section(plan: dict, folder: Path, run_a: RunData, changes: pd.DataFrame) -> Section:
    """The original and the tuned set on fresh seeds: every target's verdict, cards and types."""
    before, after = card_state(folder / plan["holdout"]["a"]), card_state(folder / plan["holdout"]["b"])
    run_b = RunData(folder / plan["holdout"]["b"])
    band = card_band(run_a)
    verdicts = []
    for (p, f), b in before.groupby(["players", "field"], sort=True):
        a = after[(after["players"] == p) & (after["field"] == f)]
        verdicts.append({"players": p, "field": f, **{f"original {k}": v for k, v in _counts(b).items()},
                         **{f"tuned {k}": v for k, v in _counts(a).items()}})
    hold = Section("holdout", "Confirmed on fresh seeds", figures_first=True)
    seats_a, seats_b = worst_seat(run_a), worst_seat(run_b)
    targets = plan.get("targets", {})
    types_before, types_after = type_state(folder / plan["holdout"]["a"]), type_state(folder / plan["holdout"]["b"])
    table = every_target(plan, (before, after), (seats_a, seats_b),
                         (target_rows(run_a, targets), target_rows(run_b, targets)), band,
                         (types_before, types_after), type_band(run_a))
    unmet = table[table["verdict"] == "not met"]
    hold.text.append(
        "Every target in the original and the tuned set, on games the search never saw: "
        f"{int((table['verdict'] == 'met').sum())} met, {len(unmet)} not met, "
        f"{int((table['verdict'] == INCONCLUSIVE).sum())} inconclusive at these games (a band or range "
        "is met when the equivalence interval lies inside it, not met when the 95% interval lies "
        "wholly outside). "
        + ("Not met: " + "; ".join(f"{t} at {', '.join(f'{p}p' for p in part['players'])}"
                                   for t, part in unmet.groupby("target", sort=False))
           + " (the table says why, and the best the search found)." if len(unmet) else ""))
    if seats_a:
        hold.tables.append(Table("tune_seats", "Worst seat, original and tuned",
                                 pd.DataFrame([r | {"set": "original"} for r in seats_a]
                                              + [r | {"set": "tuned"} for r in seats_b]), csv_only=True))
    hold.tables.append(Table("tune_targets", "Every target, original and tuned (holdout)", table))
    verdicts = pd.DataFrame(verdicts)
    hold.tables.append(Table("tune_verdicts", "Card verdicts, original and tuned (cards)"
                             + (", under each field" if verdicts["field"].nunique() > 1 else ""), verdicts,
                             verdicts if verdicts["field"].nunique() > 1 else verdicts.drop(columns=["field"])))
    gaps = types_before.merge(types_after, on=["players", "field", "type"], suffixes=("_original", "_tuned"))
    hold.tables.append(Table("tune_types", "Each card type's gap against the average card, original and tuned (pp)",
                             pd.DataFrame({"players": gaps["players"],
                                           **({"field": gaps["field"]} if gaps["field"].nunique() > 1 else {}),
                                           "type": gaps["type"],
                                           "original": _gap_text(gaps, "original"),
                                           "verdict, original": gaps["verdict_original"],
                                           "tuned": _gap_text(gaps, "tuned"),
                                           "verdict, tuned": gaps["verdict_tuned"]})))
    both = before.merge(after, on=["players", "field", "name", "type"], suffixes=("_original", "_tuned"))
    hold.tables.append(Table("tune_cards", "Every card, original and tuned", both, csv_only=True))
    several = both["field"].nunique() > 1
    for (p, f), part in both.groupby(["players", "field"], sort=False):
        tag, name = (f"{p}p · {f}", f"tune_{p}p_{f}") if several else (f"{p}p", f"tune_{p}p")
        hold.figures.append(Figure(name, f"Contrast against its type, original and tuned, {tag}",
                                   png_bytes(_figure(part, band, set(changes["card"]))),
                                   "Each card's contrast (95% intervals) in the original set (grey) and "
                                   "the tuned set (blue; changed cards in bold); green: the band."))
    return hold


def _gap_text(gaps: pd.DataFrame, side: str) -> list[str]:
    return ci_text(gaps[f"gap_pp_{side}"], gaps[f"gap_pp_low_{side}"], gaps[f"gap_pp_high_{side}"], sign=True)


def _figure(part: pd.DataFrame, band: float, changed: set[str]):
    part = part.sort_values(["type", "contrast_pp_tuned"]).reset_index(drop=True)
    n = len(part)
    fig, ax = figure(figsize=(7.5, 0.2 * n + 1.5))
    y = np.arange(n)
    for key, dy, colour, label in (("original", 0.18, "#999999", "original"), ("tuned", -0.18, "#4477aa", "tuned")):
        d = part[f"contrast_pp_{key}"]
        ax.errorbar(d, y + dy, xerr=[d - part[f"contrast_pp_low_{key}"], part[f"contrast_pp_high_{key}"] - d],
                    fmt="o", ms=3, capsize=2, color=colour, label=label)
    ax.axvspan(-band, band, color="#228833", alpha=0.15)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, part["name"], fontsize=7)
    for tick, name, t in zip(ax.get_yticklabels(), part["name"], part["type"]):
        tick.set_color(TYPE_COLOURS.get(t, "#333333"))
        tick.set_fontweight("bold" if name in changed else "normal")
    ax.invert_yaxis()
    ax.set_xlabel("contrast against its type (win share, pp; 95% interval)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig

