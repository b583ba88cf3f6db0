"""Verdicts first: each headline figure against the designer's tolerance band, per player count
and policy field (with the spread across fields when a run holds several)."""

from __future__ import annotations

import pandas as pd

from simcell.reports.data import RunData
from simcell.reports.intervals import verdict
from simcell.reports.render import Section, Table
from simcell.reports.card_table import avoided_text, segment_cards, segment_types
from simcell.reports.cards import AVOIDED_RATIO
from simcell.reports.seat_table import seat_figures, seat_name
from simcell.reports.style import type_label
from simcell.reports.estimates import interval_text
from simcell.reports.seat_table import overall


def bands(run: RunData) -> dict[str, tuple[float, bool]]:
    r = run.resolved["report"]
    return {k: (float(v), k in r["default_bands"]) for k, v in r["bands"].items()}


def build(run: RunData) -> Section:
    b = bands(run)
    seat_default = "seat_win_share_pp" in run.resolved["report"]["default_bands"] and \
        "seat_band_pp" not in run.resolved["report"]
    hp_band, hp_default = b["hp_above_table"]
    card_band, card_default = b["card_open_hand_pp"]
    type_band, type_default = b.get("card_type_pp", (1.0, True))
    sec = Section("verdicts", "Verdicts")

    def label(band, default, unit):
        return f"±{band:g} {unit}{' (default)' if default else ''}"

    sec.text.append(
        "Each headline figure against the designer's tolerance band: **in band** (shown to lie "
        "inside the band), **out of band** (shown to lie outside it) or **inconclusive** (more "
        f"games needed). Bands: a seat's win share {run.seat_band_label()}{' (default)' if seat_default else ''} of the "
        f"fair share; a seat's HP against its table's mean {label(hp_band, hp_default, 'HP')}; a "
        f"card type against the average card {label(type_band, type_default, 'pp')}; a card "
        f"against the other cards of its type {label(card_band, card_default, 'pp')}."
    )
    rows = []
    for seg in run.segments:
        if not seg.homogeneous:
            continue
        seat_band = run.seat_band(seg.players)
        f = seat_figures(run, seg, seat_band)
        p = seg.players
        worst = max(range(p), key=lambda s: abs(f.win_single[s].value - 1 / p))
        w = f.win_single[worst].scaled(100, -100 / p)
        rows.append({"players": p, "field": seg.field_name, "figure": "seat win share − fair share (pp)",
                     "worst": seat_name(worst), "value": w.value, "low": w.low, "high": w.high,
                     "band": seat_band, "verdict": overall(f.verdicts)})
        hp_verdicts = [verdict(f.above[s], hp_band) for s in range(p)]
        worst = max(range(p), key=lambda s: abs(f.above[s].value))
        a = f.above[worst]
        rows.append({"players": p, "field": seg.field_name, "figure": "seat HP − table mean",
                     "worst": seat_name(worst), "value": a.value, "low": a.low, "high": a.high,
                     "band": hp_band, "verdict": overall(hp_verdicts)})
    for seg in run.segments:
        t = segment_types(run, seg, type_band)
        if t.empty:
            continue
        w = t.loc[t["gap_pp"].abs().idxmax()]
        rows.append({"players": seg.players, "field": seg.field_name,
                     "figure": "card type − average card (pp)", "worst": type_label(w["type"]),
                     "value": w["gap_pp"], "low": w["gap_pp_low"], "high": w["gap_pp_high"],
                     "band": type_band, "verdict": overall(list(t["verdict"]))})
    if not any(r["figure"].startswith("seat") for r in rows):
        sec.text.append("No field in this run has one policy in every seat: the seat verdicts need one.")
    df = pd.DataFrame(rows, columns=["players", "field", "figure", "worst", "value", "low", "high",
                                     "band", "verdict"])
    single_field = df["field"].nunique() <= 1
    shown = df[["players", "field", "figure", "worst"]].assign(**{
        "value (95% interval)": [interval_text(v, lo, hi, 2, True)
                                 for v, lo, hi in zip(df["value"], df["low"], df["high"])],
        "band": [f"±{x:g}" for x in df["band"]], "verdict": df["verdict"]})
    if single_field:
        shown = shown.drop(columns=["field"])
    sec.tables.append(Table("verdicts", "Headline verdicts", df, shown,
                            note="Worst: the seat or card type furthest from its target; the "
                                 "figure is out of band if any seat (or type) is, and in band only "
                                 "if every one is."))
    multi = df.groupby(["players", "figure"])["field"].nunique()
    if (multi > 1).any():
        spread = (df.groupby(["players", "figure"])["value"].agg(["min", "max"])
                  .assign(spread=lambda d: d["max"] - d["min"]).round(2).reset_index())
        sec.tables.append(Table("verdict_spread", "Spread of the headline figures across fields",
                                spread, note="Which bots played is often a larger uncertainty than "
                                             "sampling: compare this spread with the intervals."))
    card_rows = []
    for seg in run.segments:
        c = segment_cards(run, seg, card_band)
        inside = int(((c["contrast_sim_low"] >= -card_band) & (c["contrast_sim_high"] <= card_band)).sum())
        card_rows.append({"players": seg.players, "field": seg.field_name, "cards": len(c),
                          "out of band": int(c["flagged"].sum()),
                          "shown in band": inside,
                          "inconclusive": len(c) - inside - int(c["flagged"].sum()),
                          "band (pp)": card_band,
                          "cards out of band": ", ".join(c.loc[c["flagged"], "name"]),
                          "avoided": int(c["avoided"].sum()),
                          "cards players avoid": "; ".join(f"{r['name']} ({avoided_text(r)})"
                                                           for _, r in c[c["avoided"]].iterrows())})
    cards_df = pd.DataFrame(card_rows)
    sec.tables.append(Table("card_verdicts", "Cards against the other cards of their type", cards_df,
                            cards_df.drop(columns=["field"] if single_field else []).assign(
                                **{"cards out of band": cards_df["cards out of band"].replace("", "none"),
                                   "cards players avoid": cards_df["cards players avoid"].replace("", "none")}),
                            note="Details and the strongest and weakest cards in [Cards](#cards). "
                                 "Avoided: kept when dealt, or bought when offered, shown at under "
                                 f"{AVOIDED_RATIO:g} of its type's rate (the middle of the other cards "
                                 "of its type), whatever its opening-hand effect: a card players "
                                 "return from the opening hand costs little to be dealt."))
    return sec
