"""`simcell compare A B`: what a change does. Run B against run A, game g against game g (the
same deal, seat order and chance streams when both ran on the same seed), from the two run
directories alone: each figure side by side with the paired difference and its interval
(reports/paired.py), the headline family under Holm, the cards under Benjamini–Hochberg, and
"moved" only where the difference's interval lies wholly outside the band."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports.units import load_calibration
from simcell.reports.data import RunData
from simcell.reports.paired import holm
from simcell.reports.render import Figure, Report, Section, Table, png_bytes, write_report
from simcell.reports.card_table import card_table
from simcell.reports.style import figure
from simcell.reports.estimates import interval_text
from simcell.vocabulary import CARD_TYPE_LABELS
from simcell.reports.changes import (
    atp_column,
    card_changes,
    correlation,
    difference_lines,
    game_differences,
    headline_changes,
    pairing,
    segment_sums,
    source_changes,
    type_changes,
)
from simcell.reports.across_skill import changes_across_skill, changes_sentence, marks_for
from simcell.vocabulary import TABLES_FOLDER


def _forest(head: pd.DataFrame, title: str):
    h = head.iloc[::-1].reset_index(drop=True)
    fig, ax = figure(figsize=(7.5, 0.32 * len(h) + 1.4))
    y = np.arange(len(h))
    for is_moved, colour in ((False, "#222222"), (True, "#cc3311")):
        part = h[h["moved"] == is_moved]
        ax.errorbar(part["difference"], part.index, fmt="o", ms=4, color=colour, capsize=2,
                    xerr=[part["difference"] - part["low"], part["high"] - part["difference"]])
    for j, band in enumerate(h["band"]):
        if pd.notna(band):  # banded figures: the band around 0 behind the row
            ax.fill_betweenx([j - 0.4, j + 0.4], -band, band, color="#228833", alpha=0.15, lw=0)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [f"{f} ({u})" for f, u in zip(h["figure"], h["unit"])], fontsize=8)
    ax.set_xlabel("B − A (95% interval)")
    ax.set_title(title)
    return fig


def _type_figure(t: pd.DataFrame, band: float, title: str):
    """Each type's gap against the average card in A (grey) and B (blue), each with its own 95%
    interval, against the band; a moved type's name in red."""
    t = t.reset_index(drop=True)
    fig, ax = figure(figsize=(7.5, 0.42 * len(t) + 1.4))
    y = np.arange(len(t))
    for side, colour, dy in (("A", "#888888", 0.14), ("B", "#0077bb", -0.14)):
        v = t[f"gap_pp_{side}"]
        ax.errorbar(v, y + dy, fmt="o", ms=4, color=colour, capsize=2, label=side,
                    xerr=[v - t[f"gap_pp_low_{side}"], t[f"gap_pp_high_{side}"] - v])
    ax.axvspan(-band, band, color="#228833", alpha=0.15)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [CARD_TYPE_LABELS[n] for n in t["type"]], fontsize=8)
    for label, is_moved in zip(ax.get_yticklabels(), t["moved"]):
        label.set_color("#cc3311" if is_moved else "black")
    ax.invert_yaxis()
    ax.set_xlabel("gap against the average card (win share, pp; 95% interval)")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title)
    return fig


def _card_forest(c: pd.DataFrame, band: float, title: str):
    """Each card's change in opening-hand effect (B − A) with its interval; moved cards in red."""
    c = c.sort_values(["type", "open_hand_win_pp_diff"]).reset_index(drop=True)
    fig, ax = figure(figsize=(7.5, 0.16 * len(c) + 1.4))
    for is_moved, colour in ((False, "#222222"), (True, "#cc3311")):
        part = c[c["moved"] == is_moved]
        d = part["open_hand_win_pp_diff"]
        ax.errorbar(d, part.index, fmt="o", ms=3, color=colour, capsize=2,
                    xerr=[d - part["open_hand_win_pp_low"], part["open_hand_win_pp_high"] - d])
    ax.axvline(0, color="black", lw=0.8)
    ax.axvspan(-band, band, color="#228833", alpha=0.15)
    ax.set_yticks(range(len(c)), c["name"], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("opening-hand effect, B − A (win share, pp; 95% interval)")
    ax.set_title(title)
    return fig


def type_section(types: pd.DataFrame, band: float, marks: list[str] | None = None) -> Section:
    """The card types' gaps against the average card, A and B, and what moved."""
    sec = Section("types", "Card types", figures_first=True)
    mv = types[types["moved"]]
    sec.text.append(
        f"Each card type's gap against the average card (its cards' mean opening-hand effect minus "
        f"the mean over every card, as the run report's card types) in A and in B, each with its "
        f"verdict against the band ±{band:g} pp (`card_type_pp`), and the paired difference B − A. "
        f"A type **moved** when the interval of B − A lies wholly outside the band. "
        + (f"Moved: {', '.join(f'{CARD_TYPE_LABELS[r.type]} ({r.players}p · {r.field}: {r.gap_pp_A:+.2f} → {r.gap_pp_B:+.2f} pp, B − A {r.gap_pp_diff:+.2f}, {r.gap_pp_low:+.2f} to {r.gap_pp_high:+.2f})' for r in mv.itertuples())}."
           if len(mv) else "No type moved."))
    for (p, field), part in types.groupby(["players", "field"], sort=False):
        sec.figures.append(Figure(f"compare_types_{p}p_{field}", f"Card types, A and B, {p}p · {field}",
                                  png_bytes(_type_figure(part, band, f"Card types, A and B, {p}p · {field}")),
                                  f"Each type's gap against the average card in A (grey) and B (blue), "
                                  f"95% intervals; green: the band ±{band:g} pp; a moved type in red."))

    def level(side):
        return [f"{interval_text(v, lo, hi, 2, True)}, {vd}" for v, lo, hi, vd in
                zip(types[f"gap_pp_{side}"], types[f"gap_pp_low_{side}"], types[f"gap_pp_high_{side}"],
                    types[f"verdict_{side}"])]

    shown = types[["players", "field"]].assign(**{
        "type": types["type"].map(CARD_TYPE_LABELS), "A, pp": level("A"), "B, pp": level("B"),
        "B − A (95%)": [interval_text(d, lo, hi, 2, True) for d, lo, hi in
                        zip(types["gap_pp_diff"], types["gap_pp_low"], types["gap_pp_high"])],
        "moved": np.where(types["moved"], "moved", "")})
    if marks is not None:
        types = types.assign(across_skill=marks)
        shown["across skill"] = marks
    sec.tables.append(Table("types", "Card types against the average card, A and B", types, shown))
    return sec


def headline_lines(head: pd.DataFrame, most: int = 4) -> list[str]:
    """The headline figures that moved, saying what moving is (left the band: B − A's interval
    wholly outside it), then the largest changes that are real (B − A's interval excludes 0)
    but did not leave the band, so that "none moved" never hides a change a designer can see."""
    def one(r) -> str:
        unit = f" {r.unit}" if isinstance(r.unit, str) else ""
        band = f", band ±{r.band:g}" if pd.notna(r.band) else ", no band"
        return (f"{r.players}p · {r.field} {r.figure} {r.A:.2f} → {r.B:.2f}, B − A "
                f"{interval_text(r.difference, r.low, r.high, 2, True)}{unit}{band}")

    mv = head[head["moved"]]
    out = ["headline figures beyond their band (B − A's interval wholly outside it): "
           + ("; ".join(one(r) for r in mv.itertuples()) if len(mv) else "none")]
    real = head[~head["moved"] & ((head["low"] > 0) | (head["high"] < 0))]
    real = real.reindex(real["difference"].abs().sort_values(ascending=False).index)
    if len(real):
        out.append("changes whose interval excludes 0, not beyond their band: "
                   + "; ".join(one(r) for r in real.head(most).itertuples())
                   + (f"; and {len(real) - most} more (tables/headline.csv)" if len(real) > most else ""))
    return out


def terminal_summary(folder: Path) -> str:
    """What `simcell compare` prints: the values changed, the headline figures and card types
    that moved, every type's gap A → B, and the cards that moved, from the report's tables."""
    t = folder / TABLES_FOLDER
    # values as written (true, [4, 4, 3, 2]), not parsed back into numbers
    diffs = pd.read_csv(t / "differences.csv", dtype=str, keep_default_na=False)
    head = pd.read_csv(t / "headline.csv")
    types = pd.read_csv(t / "types.csv")
    cards = pd.read_csv(t / "cards.csv")
    shown = difference_lines(diffs)
    lines = [f"{len(diffs)} value{'' if len(diffs) == 1 else 's'} differ{'s' if len(diffs) == 1 else ''} "
             "(A → B)" + (": " + "; ".join(shown[:8]) + (f"; and {len(shown) - 8} more (tables/differences.csv)"
                                                          if len(shown) > 8 else "") if len(shown) else "")]

    def span(d, lo, hi):
        return interval_text(d, lo, hi, 2, True)

    lines += headline_lines(head)
    lines.append(changes_sentence(pd.read_csv(t / "across_skill.csv") if (t / "across_skill.csv").is_file() else None))
    lines.append("card types against the average card, pp (A → B, B − A with its 95% interval):")
    for r in types.itertuples():
        lines.append(f"  {r.players}p · {r.field} {CARD_TYPE_LABELS[r.type]:<25} {r.gap_pp_A:+6.2f} → "
                     f"{r.gap_pp_B:+6.2f}, B − A {span(r.gap_pp_diff, r.gap_pp_low, r.gap_pp_high)}"
                     + ("  moved" if r.moved else "")
                     + (f"  (across skill: {r.across_skill})" if isinstance(getattr(r, "across_skill", None), str) else ""))
    mc = cards[cards["moved"]]
    lines.append("cards moved: " + ("; ".join(
        f"{r.players}p · {r.field} {r.name} effect B − A "
        f"{span(r.open_hand_win_pp_diff, r.open_hand_win_pp_low, r.open_hand_win_pp_high)}"
        for r in mc.head(8).itertuples()) + (f" and {len(mc) - 8} more" if len(mc) > 8 else "")
        if len(mc) else "none"))
    return "\n".join(lines)


def build_compare(root_a: Path, root_b: Path, out: Path, unpaired: bool = False,
                  calibration: Path | None = None) -> Path:
    """Write the comparison report of run B against run A into `out`; returns `out`. With a
    `simcell calibrate` folder, differences are also stated in ATP."""
    a, b = RunData(root_a), RunData(root_b)
    cal = load_calibration(calibration) if calibration is not None else None
    pair = pairing(a, b, unpaired)
    bands = {k: float(v) for k, v in a.resolved["report"]["bands"].items()}
    cards = card_table(a)
    diffs = game_differences(a, b)
    heads, sources, card_rows, type_rows, corr_rows, figs = [], [], [], [], [], []
    for seg_a, seg_b in zip(a.segments, b.segments):
        sa, hp_a = segment_sums(a, seg_a)
        sb, hp_b = segment_sums(b, seg_b)
        head = headline_changes(seg_a, sa, sb, pair.paired, bands | {"seat_win_share_pp": a.seat_band(seg_a.players)})
        heads.append(head)
        sources.append(source_changes(seg_a, sa, sb, pair.paired))
        card_rows.append(card_changes(seg_a, sa, sb, pair.paired, cards, bands["card_open_hand_pp"]))
        type_rows.append(type_changes(seg_a, sa, sb, pair.paired, cards, bands["card_type_pp"]))
        rho = correlation(hp_a, hp_b) if pair.paired and hp_a.shape == hp_b.shape else float("nan")
        corr_rows.append({"players": seg_a.players, "field": seg_a.field_name, "games": seg_a.games,
                          "rho": rho, "variance_reduction": 1 / (1 - rho) if rho == rho and rho < 1 else np.nan})
        figs.append(Figure(f"compare_{seg_a.players}p_f{seg_a.field}", f"B − A, {seg_a.label}",
                           png_bytes(_forest(head, f"B − A, {seg_a.label}")),
                           "Paired differences with 95% intervals; green: the band; red: moved "
                           "(the interval wholly outside the band)."))
    head = pd.concat(heads, ignore_index=True)
    head["p_holm"] = holm(head["p_value"].to_numpy())  # one confirmatory family over every segment
    skill = changes_across_skill(Path(root_a), Path(root_b), unpaired=unpaired)
    head_marks = marks_for(skill, head, "figure")
    if head_marks is not None:
        head["across_skill"] = head_marks
    sec_head = _what_changed(a, b, root_a, root_b, pair, diffs, pd.DataFrame(corr_rows), skill)
    sec = _headline_section(head, pd.concat(sources, ignore_index=True), figs, cal, head_marks)
    types_all = pd.concat(type_rows, ignore_index=True)
    tsec = type_section(types_all, bands["card_type_pp"],
                        marks_for(skill, types_all.assign(figure=types_all["type"] + ": gap"), "figure"))
    csec = _cards_section(pd.concat(card_rows, ignore_index=True), bands["card_open_hand_pp"], diffs, cal)
    title = f"simcell comparison: {Path(root_b).name} against {Path(root_a).name}"
    write_report(Report(title, [sec_head, sec, tsec, csec]), out)
    return out


def _what_changed(a: RunData, b: RunData, root_a: Path, root_b: Path, pair, diffs: pd.DataFrame,
                  corr: pd.DataFrame, skill: pd.DataFrame | None) -> Section:
    """What differs between A and B, how they are paired, and the changes across skill."""
    sec_head = Section("comparison", "What changed, and what it did")
    sec_head.text.append(f"**A** = `{root_a}`, **B** = `{root_b}`; {pair.text}.")
    if diffs.empty:
        sec_head.text.append("The two runs play the same game (no card, board or rule value differs).")
    if pair.paired:
        sec_head.text.append("Correlation of paired results (each player's final HP in A and B), and the "
                             "variance reduction 1/(1 − ρ) it gives a difference over unpaired runs: "
                             + "; ".join(f"{r.players}p · {r.field}: ρ = {r.rho:.3f}, ×{r.variance_reduction:.2f}"
                                         for r in corr.itertuples()) + ".")
    lengths = [(s.players, a.rounds(s.players), b.rounds(s.players)) for s in a.segments]
    sec_head.text.append("Game length (rounds, fixed by the event deck: the same in every game): "
                         + "; ".join(f"{p}p: {ra} in A, {rb} in B" + (" (changed)" if ra != rb else "")
                                     for p, ra, rb in dict.fromkeys(lengths)) + ".")
    sec_head.text.append(changes_sentence(skill))
    sec_head.tables.append(Table("differences", "Card, board and rule values that differ (A → B)", diffs,
                                 pd.DataFrame({"value: A → B": difference_lines(diffs)})))
    if skill is not None:
        sec_head.tables.append(Table("across_skill", "Each seat's and card type's change under each rung",
                                     skill, csv_only=True))
    sec_head.tables.append(Table("pairing", "Correlation of paired results", corr, csv_only=True))
    return sec_head


def _headline_section(head: pd.DataFrame, src: pd.DataFrame, figs: list, cal,
                      head_marks: list[str] | None) -> Section:
    """Each seat's win share and HP above the table, winning HP, margin and ties; HP by source."""
    sec = Section("headline", "Headline figures", figures_first=True)
    sec.text.append("Each seat's win share and HP above the table mean, winning HP, margin of victory "
                    "and tie rate, in A and B, with the difference B − A and its 95% interval. "
                    "**moved**: the interval lies wholly outside the band (seats only); p-values are "
                    "Holm-adjusted over the whole headline family.")
    sec.figures += figs
    shown = head[["players", "field", "figure"]].assign(
        A=head["A"].map(lambda v: f"{v:.2f}"), B=head["B"].map(lambda v: f"{v:.2f}"),
        **{"B − A (95%)": [interval_text(d, lo, hi, 2, True) for d, lo, hi in
                           zip(head["difference"], head["low"], head["high"])],
           "Holm p": head["p_holm"].map(lambda v: f"{v:.3g}"),
           "moved": np.where(head["moved"], "moved", "")})
    atp = atp_column(head, cal, lambda r: "win" if r["figure"].endswith("win share") else
                     "hp" if r["figure"].endswith("table mean") else None)
    if atp is not None:
        shown.insert(shown.columns.get_loc("Holm p"), "in ATP", atp)
    if head_marks is not None:
        shown["across skill"] = head_marks
    sec.tables.append(Table("headline", "Headline figures, A and B", head, shown))
    sec.tables.append(Table("hp_by_source", "Mean HP per player by source, A and B", src,
                            src[["players", "field", "source"]].assign(
                                A=src["A"].round(3), B=src["B"].round(3),
                                **{"B − A (95%)": [interval_text(d, lo, hi, 3, True) for d, lo, hi in
                                                   zip(src["difference"], src["low"], src["high"])]}),
                            collapsed=True))
    return sec


def _cards_section(allc: pd.DataFrame, band: float, diffs: pd.DataFrame, cal) -> Section:
    """Every card's effect, contrast, pick and completion rates in A and B, and what moved."""
    csec = Section("cards", "Cards", figures_first=True)
    mv = allc[allc["moved"]]
    csec.text.append(f"Every card's opening-hand effect, its contrast against its type (in A and in "
                     f"B with its verdict against the band, each card on its own: the run report's "
                     f"flags also allow for testing 43 cards at once), its pick rate "
                     f"per exposure and its completion rate, in A and B. A card **moved** when its "
                     f"effect or contrast changed by more than the band ±{band:g} pp (interval wholly "
                     f"outside it) with a Benjamini–Hochberg q below 0.05 over the cards. "
                     f"{len(mv)} card(s) moved" + (": " + ", ".join(mv["name"]) + "." if len(mv) else "."))

    def ci(col, digits=1):
        return [interval_text(d, lo, hi, digits, True) for d, lo, hi in
                zip(allc[f"{col}_diff"], allc[f"{col}_low"], allc[f"{col}_high"])]

    cshown = allc[["players", "field", "name", "type"]].assign(
        type=allc["type"].map(CARD_TYPE_LABELS),
        **{"effect A → B, pp": [f"{x:+.1f} → {y:+.1f}" for x, y in zip(allc["open_hand_win_pp_A"], allc["open_hand_win_pp_B"])],
           "effect B − A": ci("open_hand_win_pp"),
           "vs type A → B, pp": [f"{x:+.1f} ({va}) → {y:+.1f} ({vb})" for x, y, va, vb in
                                 zip(allc["contrast_pp_A"], allc["contrast_pp_B"], allc["verdict_A"], allc["verdict_B"])],
           "vs type B − A": ci("contrast_pp"),
           "pick rate B − A, %": ci("pick_rate_pct"), "completed B − A, %": ci("completion_pct"),
           "moved": np.where(allc["moved"], "moved", "")})
    for (p, field), part in allc.groupby(["players", "field"], sort=False):
        csec.figures.append(Figure(f"compare_cards_{p}p_{field}", f"Cards, B − A, {p}p · {field}",
                                   png_bytes(_card_forest(part, band, f"Cards, B − A, {p}p · {field}")),
                                   f"Change in each card's opening-hand effect; green: the band "
                                   f"±{band:g} pp; red: moved."))
    atp = atp_column(allc.rename(columns={"open_hand_win_pp_diff": "difference"}), cal, lambda r: "win")
    if atp is not None:
        cshown.insert(cshown.columns.get_loc("vs type B − A"), "effect in ATP", atp)
    changed = set(diffs.loc[diffs["what"] == "card", "name"])
    top = allc["moved"] | allc["name"].isin(changed)
    if top.any():
        csec.tables.append(Table("cards_moved", "Cards changed or moved", allc[top], cshown[top]))
    csec.tables.append(Table("cards", "Every card, A and B", allc, cshown, collapsed=True))
    return csec
