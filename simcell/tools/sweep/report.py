"""`simcell sweep`: response curves of one value a designer varies, from a folder of run
directories that played the same games (sweep.json lists them). Each variant's figures with the
interval of its paired difference from the first variant; the slope per step and, for a swept
card, the value at which its contrast against its type crosses zero, both jackknifed over the
shared blocks (reports/paired.py); the other cards that moved between the first and the last
variant (Benjamini–Hochberg)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from simcell.reports.units import in_atp, load_calibration
from simcell.reports.changes import card_changes, pairing, segment_sums, type_gaps
from simcell.reports.data import RunData
from simcell.reports.paired import difference, jackknife_many
from simcell.reports.render import Figure, Report, Section, Table, write_report
from simcell.reports.card_table import card_table
from simcell.reports.style import figure
from simcell.reports.estimates import interval_text
from simcell.vocabulary import CARD_TYPE_LABELS
from simcell.vocabulary import SWEEP_FILE
from simcell.reports.across_skill import changes_across_skill, changes_sentence



def write_plan(folder: Path, settings: list[dict], variants: list[dict], holdout: dict | None = None) -> None:
    """sweep.json: the settings ({key, values}) and the variants ({name, values, run}) in order;
    the holdout ({seed, variants}) once the variants either side of a crossing are replayed."""
    plan = {"settings": settings, "variants": variants} | ({"holdout": holdout} if holdout else {})
    (folder / SWEEP_FILE).write_text(json.dumps(plan, indent=1))


def _ratio(n, d):
    with np.errstate(invalid="ignore", divide="ignore"):
        return n / d


class _Figures:
    """The figures of one variant from its block-sum totals: for a swept card, its opening-hand
    effect, contrast, pick rate and completion rate (pp or %); for a swept card type, its gap
    against the average card (pp); each seat's distance from the fair share and the largest
    of them (pp), and the winning HP. `crossing` is the index of the figure whose zero crossing
    the sweep reports (the card's contrast, the type's gap), or None."""

    def __init__(self, card: int | None, same_type: np.ndarray, players: int,
                 type_ids: np.ndarray | None = None, all_ids: np.ndarray | None = None,
                 type_label: str = "type"):
        self.card, self.same_type, self.p = card, same_type, players
        self.type_ids, self.all_ids = type_ids, all_ids
        self.names = (["opening-hand effect (pp)", "against its type (pp)", "pick rate (%)",
                       "completion rate (%)"] if card is not None else [])
        self.names += [f"{type_label} against the average card (pp)"] if type_ids is not None else []
        self.crossing = 1 if card is not None else (0 if type_ids is not None else None)
        self.names += [f"{'seat 0 (first)' if s == 0 else f'seat {s}'} − fair share (pp)"
                       for s in range(players)]
        self.names += ["largest distance from the fair share (pp)", "winning HP"]

    def __call__(self, t: dict) -> np.ndarray:
        out = []
        if self.card is not None:
            c = self.card
            effects = _ratio(t["open_win"][self.same_type], t["dealt"][self.same_type]) * 100
            own = _ratio(t["open_win"][c], t["dealt"][c]) * 100
            others = effects[self.same_type != c]
            out += [own, own - np.nanmean(others) if len(others) else np.nan,
                    _ratio(t["bought"][c], t["exposed"][c]) * 100,
                    _ratio(t["completed"][c], t["acquired"][c]) * 100]
        if self.type_ids is not None:
            kinds = np.where(np.isin(self.all_ids, self.type_ids), "swept", "other")
            out += list(type_gaps(t, self.all_ids, kinds, ["swept"]))
        # each seat's distance, and the largest: fixed quantities, whichever seat is furthest
        share = _ratio(t["seat_win"], t["seat_rows"]) * 100 - 100 / self.p
        out += list(share) + [np.max(np.abs(share)), t["winning_hp"] / t["games"]]
        return np.array(out, float)


def _crossing(x: np.ndarray, y: np.ndarray) -> float:
    """The x at which y crosses zero first (linear between neighbours), else NaN."""
    for i in range(len(x) - 1):
        if y[i] == 0:
            return float(x[i])
        if np.isfinite(y[i]) and np.isfinite(y[i + 1]) and (y[i] < 0) != (y[i + 1] < 0):
            return float(x[i] + (x[i + 1] - x[i]) * y[i] / (y[i] - y[i + 1]))
    return float(x[-1]) if len(y) and y[-1] == 0 else float("nan")


@dataclass
class _Sweep:
    """A sweep folder read: its plan, runs and swept values, and the swept card (if any)."""

    settings: list[dict]
    variants: list[dict]
    runs: list[RunData]
    x: np.ndarray
    numeric: bool
    key: str
    card: int | None
    card_name: str | None
    same_type: np.ndarray
    cards: pd.DataFrame
    holdout: dict | None
    card_type: str | None = None  # a swept card type (when no single card is swept)
    type_ids: np.ndarray | None = None

    def figures(self, players: int) -> _Figures:
        return _Figures(self.card, self.same_type, players, self.type_ids,
                        self.cards["id"].to_numpy() if self.type_ids is not None else None,
                        self.target or "type")

    @property
    def target(self) -> str | None:
        """What the zero crossing is of: the swept card, or the swept type."""
        if self.card is not None:
            return self.card_name
        return CARD_TYPE_LABELS[self.card_type] if self.card_type else None


def _read(folder: Path) -> _Sweep:
    plan = json.loads((folder / SWEEP_FILE).read_text())
    settings, variants = plan["settings"], plan["variants"]
    runs = [RunData(folder / v["run"]) for v in variants]
    for r in runs[1:]:
        pairing(runs[0], r)  # the same players, fields and games; refused otherwise
    one = len(settings) == 1
    # a relative value ("+1", config/overrides.py) is the step it makes
    x_values = [int(x) if isinstance(x, str) and re.fullmatch(r"[+-]\d+", x.strip()) else x
                for x in (v["values"][0] for v in variants)]
    numeric = one and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in x_values)
    x = np.array(x_values, float) if numeric else np.arange(len(variants), dtype=float)
    cards = card_table(runs[0])
    key = settings[0]["key"]
    card_name = None
    for s in settings:
        parts = s["path"]
        if parts[:2] == ["overrides", "cards"]:
            card_name = parts[2]
            key = s["key"]
            break
    card = int(cards.loc[cards["name"] == card_name, "id"].iloc[0]) if card_name is not None else None
    same_type = (cards.loc[cards["type"] == cards.loc[cards["id"] == card, "type"].iloc[0], "id"].to_numpy()
                 if card is not None else np.array([], int))
    card_type = None if card is not None else next((s["card_type"] for s in settings if s.get("card_type")), None)
    if card_type is not None:
        key = next(s["key"] for s in settings if s.get("card_type"))
    type_ids = cards.loc[cards["type"] == card_type, "id"].to_numpy() if card_type else None
    return _Sweep(settings, variants, runs, x, numeric, key, card, card_name, same_type, cards,
                  plan.get("holdout"), card_type, type_ids)


def brackets(folder: Path) -> list[int]:
    """The variants (indices) on either side of each place where the swept card's contrast
    crosses zero, over the player counts and fields: the ones a holdout replays."""
    sw = _read(folder)
    if sw.target is None or not sw.numeric or len(sw.variants) < 2:
        return []
    out: set[int] = set()
    for si, seg in enumerate(sw.runs[0].segments):
        stat = sw.figures(seg.players)
        ys = np.array([stat({k: v.sum(axis=0) for k, v in segment_sums(r, r.segments[si])[0].items()})[stat.crossing]
                       for r in sw.runs])
        at = _crossing(np.arange(len(ys), dtype=float), ys)
        if np.isfinite(at):
            i = min(int(np.floor(at)), len(ys) - 2)
            out |= {i, i + 1}
    return sorted(out)


def build_sweep(folder: Path, calibration: Path | None = None) -> Path:
    """Write the sweep report of `folder` (sweep.json and its run directories) into folder; with
    a `simcell calibrate` folder, the differences in win share also in ATP."""
    sw = _read(folder)
    settings, variants, runs, numeric, key = sw.settings, sw.variants, sw.runs, sw.numeric, sw.key
    hold = [RunData(folder / v["run"]) for v in sw.holdout["variants"]] if sw.holdout else []
    for r in hold[1:]:
        pairing(hold[0], r)
    x_hold = np.array([v["values"][0] for v in sw.holdout["variants"]], float) if hold else None
    band = float(runs[0].resolved["report"]["bands"]["card_open_hand_pp"])
    head = Section("sweep", f"Sweep of {' × '.join(s['key'] for s in settings)}", figures_first=True)
    head.text.append(
        f"{len(variants)} variants on the same games (seed {runs[0].seed}): "
        + "; ".join(f"`{s['key']}` = " + ", ".join(json.dumps(v) for v in s["values"]) for s in settings)
        + ". Each point is the variant's figure; its interval is that of the paired difference "
        "from the first variant (jackknife over the shared blocks), drawn around the point.")
    rows, summary_rows, moved_rows, crossings = _measure(sw, hold, x_hold, band)
    curves = pd.DataFrame(rows)
    summary = pd.DataFrame(summary_rows)
    _response_figures(head, curves, key if numeric else "variant", variants, numeric, crossings)
    shown = curves.assign(**{"value": curves["value"].round(2),
                             "vs first (95%)": ["(the first variant)" if v == variants[0]["name"] else
                                                interval_text(d, lo, hi, 2, True) for v, d, lo, hi in
                                                zip(curves["variant"], curves["diff_from_first"],
                                                    curves["diff_low"], curves["diff_high"])]})[
        ["players", "figure", "variant", "value", "vs first (95%)"]]
    if calibration is not None:
        cal = load_calibration(calibration)
        shown["in ATP"] = [in_atp(r["diff_from_first"], cal[(r["players"], r["field"])]["win_pp_per_atp"])
                           if (r["players"], r["field"]) in cal and "(pp)" in r["figure"] else ""
                           for r in curves.to_dict("records")]
    head.tables.append(Table("sweep_curves", "Figures by variant", curves, shown))
    if len(summary):
        head.tables.append(_summary_table(summary))
    head.tables.append(Table("sweep_moved", "Other cards that moved (last variant against the first)",
                             pd.DataFrame(moved_rows, columns=MOVED_COLUMNS),
                             note=f"Moved: its contrast against its type or its opening-hand effect "
                                  f"changed with a Benjamini–Hochberg q below 0.05 over the cards and "
                                  f"an interval wholly outside ±{band:g} pp; 'moved by' names which."))
    if len(runs) > 1:
        _across_skill(head, runs, sw)
    title = f"simcell sweep: {' × '.join(s['key'] for s in settings)}"
    write_report(Report(title, [head]), folder)
    return folder


def _measure(sw: _Sweep, hold: list[RunData], x_hold, band: float):
    """Per segment: each figure of each variant against the first, the slope per step and any
    zero crossing (with its holdout), and the other cards that moved from first to last."""
    runs, variants, x, numeric, key, card = sw.runs, sw.variants, sw.x, sw.numeric, sw.key, sw.card
    cards = sw.cards
    rows, summary_rows, moved_rows = [], [], []
    crossings: dict[tuple[int, str], tuple[str, float]] = {}  # (players, field) -> (figure, x)
    for si, seg in enumerate(runs[0].segments):
        segs = [r.segments[si] for r in runs]
        sums = [segment_sums(r, s)[0] for r, s in zip(runs, segs)]
        stat = sw.figures(seg.players)
        for v, (variant, s) in enumerate(zip(variants, sums)):
            d = difference(stat, sums[0], s)
            lo, hi = d.bounds()
            for j, name in enumerate(stat.names):
                rows.append({"players": seg.players, "field": seg.field_name, "variant": variant["name"],
                             "x": x[v], "figure": name, "value": d.b[j], "diff_from_first": d.diff[j],
                             "diff_low": lo[j], "diff_high": hi[j]})
        if len(variants) > 1 and numeric:  # a slope only along one numeric value
            def slope(totals, stat=stat):
                ys = np.array([stat(t) for t in totals])  # variants x figures
                xc = x - x.mean()
                return (xc[:, None] * (ys - ys.mean(axis=0))).sum(axis=0) / (xc ** 2).sum()

            value, se, df = jackknife_many(slope, sums)
            for j, name in enumerate(stat.names):
                summary_rows.append({"players": seg.players, "field": seg.field_name, "figure": name,
                                     "slope_per_step": value[j], "slope_se": se[j], "df": df})
            if stat.crossing is not None and numeric:
                at = stat.crossing
                what = "contrast" if card is not None else "gap against the average card"

                def cross(totals, stat=stat, at=at):
                    return np.array([_crossing(x, np.array([stat(t)[at] for t in totals]))])

                cv, cse, _ = jackknife_many(cross, sums)
                summary_rows.append({"players": seg.players, "field": seg.field_name,
                                     "figure": f"{sw.target}: value where its {what} crosses 0",
                                     "crossing": cv[0], "crossing_se": cse[0], "df": df})
                crossings[(seg.players, seg.field_name)] = (stat.names[at], cv[0])
                if len(hold) >= 2:
                    hsums = [segment_sums(r, r.segments[si])[0] for r in hold]

                    def hold_cross(totals, stat=stat, at=at):
                        return np.array([_crossing(x_hold, np.array([stat(t)[at] for t in totals]))])

                    hv, hse, hdf = jackknife_many(hold_cross, hsums)
                    summary_rows.append({
                        "players": seg.players, "field": seg.field_name,
                        "figure": f"{sw.target}: the same on fresh seeds (holdout, seed {hold[0].seed}, "
                                  f"{key} = " + ", ".join(f"{v:g}" for v in x_hold) + ")",
                        "crossing": hv[0], "crossing_se": hse[0], "df": hdf, "holdout": True})
        if len(variants) > 1:
            c = card_changes(seg, sums[0], sums[-1], True, cards, band)
            moved_rows += moved_cards(c[c["card"] != card], band)
    return rows, summary_rows, moved_rows, crossings


MOVED_COLUMNS = ["players", "field", "card", "moved by", "against its type, pp (last − first)",
                 "opening-hand effect, pp (last − first)"]


def moved_cards(c: pd.DataFrame, band: float) -> list[dict]:
    """The cards of a card_changes table that moved, each with the figure it moved by (its
    contrast against its type, its opening-hand effect, or both: the figure whose change has a
    q below 0.05 and an interval wholly outside the band) and both changes with their intervals,
    so a card listed for its contrast is not shown by an effect whose interval holds zero."""
    out = []
    for r in c[c["moved"]].itertuples():
        by = [name for name, col, q in (("its contrast", "contrast_pp", r.contrast_q),
                                        ("its effect", "open_hand_win_pp", r.effect_q))
              if q < 0.05 and (getattr(r, f"{col}_low") > band or getattr(r, f"{col}_high") < -band)]
        out.append({"players": r.players, "field": r.field, "card": r.name, "moved by": " and ".join(by),
                    "against its type, pp (last − first)": interval_text(
                        r.contrast_pp_diff, r.contrast_pp_low, r.contrast_pp_high, 2, True),
                    "opening-hand effect, pp (last − first)": interval_text(
                        r.open_hand_win_pp_diff, r.open_hand_win_pp_low, r.open_hand_win_pp_high, 2, True)})
    return out


def _response_figures(head: Section, curves: pd.DataFrame, xlabel: str, variants: list[dict],
                      numeric: bool, crossings: dict) -> None:
    for (p, field), part in curves.groupby(["players", "field"], sort=False):
        head.figures.append(Figure(f"sweep_{p}p_{field}", f"Response curves, {p}p · {field}",
                                   _curves(part, xlabel, variants, numeric, crossings.get((p, field))),
                                   "Each figure against the swept value; whiskers: the paired "
                                   "difference's 95% interval from the first variant; a dashed "
                                   "line where the swept card's contrast or type's gap crosses 0."))


def _summary_table(summary: pd.DataFrame) -> Table:
    """The slope per step and each zero crossing, with their 95% intervals."""
    text = []
    for r in summary.to_dict("records"):
        q = stats.t.ppf(0.975, max(int(r["df"]), 1))
        if r.get("holdout") is True:
            text.append(f"confirmed: {r['crossing']:.2f} ({r['crossing'] - q * r['crossing_se']:.2f} "
                        f"to {r['crossing'] + q * r['crossing_se']:.2f})" if np.isfinite(r["crossing"])
                        else "not confirmed: no crossing between these values on fresh seeds")
        elif "crosses" in r["figure"]:
            text.append(f"{r['crossing']:.2f} ({r['crossing'] - q * r['crossing_se']:.2f} to "
                        f"{r['crossing'] + q * r['crossing_se']:.2f})"
                        if np.isfinite(r["crossing"]) else "not within the range")
        else:
            text.append(f"{r['slope_per_step']:+.3f} ({r['slope_per_step'] - q * r['slope_se']:+.3f} "
                        f"to {r['slope_per_step'] + q * r['slope_se']:+.3f})")
    return Table("sweep_summary", "Slope per step, and where the swept card's contrast or "
                 "type's gap crosses zero",
                 summary, summary[["players", "figure"]].assign(**{"estimate (95%)": text}),
                 note="Slope: least squares over the variants, per unit of the swept "
                      "value; both jackknifed over the blocks the variants share. A "
                      "crossing is a finding only once the variants either side of it, "
                      "replayed on fresh seeds (the holdout), cross there too.")


def _across_skill(head: Section, runs: list[RunData], sw: _Sweep) -> None:
    """The last variant against the first under each rung both were played again under."""
    skill = changes_across_skill(runs[0].root, runs[-1].root, (sw.card_name,) if sw.card_name else ())
    head.text.append(f"From the first variant to the last, {changes_sentence(skill)[0].lower()}{changes_sentence(skill)[1:]}")
    if skill is not None:
        rungs = [c.removesuffix("_class") for c in skill.columns if c.endswith("_class")]
        shown_skill = skill[["players", "figure"]].assign(**{
            r: [f"{interval_text(d, lo, hi, 2, True)} {k}" for d, lo, hi, k in
                zip(skill[f"{r}_difference"], skill[f"{r}_low"], skill[f"{r}_high"], skill[f"{r}_class"])]
            for r in rungs}, **{"across skill": skill["across_skill"]})
        head.tables.append(Table("sweep_across_skill", "The last variant against the first, under each rung",
                                 skill, shown_skill))


def _curves(part: pd.DataFrame, xlabel: str, variants: list[dict], numeric: bool,
            crossing: tuple[str, float] | None = None):
    names = list(dict.fromkeys(part["figure"]))
    cols = min(3, len(names))
    rows = -(-len(names) // cols)
    fig, axes = figure(nrows=rows, ncols=cols, figsize=(3.4 * cols, 2.7 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        f = part[part["figure"] == name]
        err = [f["diff_from_first"] - f["diff_low"], f["diff_high"] - f["diff_from_first"]]
        ax.errorbar(f["x"], f["value"], yerr=err, fmt="o-", ms=4, capsize=3, color="#4477aa")
        ax.set_title(name, fontsize=9)
        if crossing is not None and crossing[0] == name and np.isfinite(crossing[1]):
            ax.axhline(0, color="black", lw=0.6)
            ax.axvline(crossing[1], color="#cc3311", lw=1, ls="--")
        if numeric:
            ax.set_xticks(f["x"])
        else:
            ax.set_xticks(f["x"], [str(i + 1) for i in range(len(f))])
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    fig.supxlabel(xlabel if numeric else "variant (1 = " + variants[0]["name"] + ")", fontsize=9)
    fig.tight_layout()
    return fig
