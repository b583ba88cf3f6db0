"""Verdicts first: each headline figure against the designer's tolerance band, per player count
and policy field (with the spread across fields when a run holds several)."""

from __future__ import annotations

import pandas as pd

from simcell.reports.data import RunData
from simcell.reports.intervals import IN_BAND, INCONCLUSIVE, OUT_OF_BAND, verdict
from simcell.reports.render import Section, Table
from simcell.reports.sections.cards import segment_cards
from simcell.reports.sections.seats import seat_figures


def overall(verdicts: list[str]) -> str:
    if OUT_OF_BAND in verdicts:
        return OUT_OF_BAND
    return IN_BAND if all(v == IN_BAND for v in verdicts) else INCONCLUSIVE


def bands(run: RunData) -> dict[str, tuple[float, bool]]:
    r = run.resolved["report"]
    return {k: (float(v), k in r["default_bands"]) for k, v in r["bands"].items()}


def build(run: RunData) -> Section:
    b = bands(run)
    seat_band, seat_default = b["seat_win_share_pp"]
    hp_band, hp_default = b["hp_above_table"]
    sec = Section("verdicts", "Verdicts")
    sec.text.append(
        "Each headline figure against its tolerance band: **in band** (the figure is shown to lie "
        "inside the band), **out of band** (shown to lie outside), or **inconclusive** (more games "
        "needed). Bands: seat win share ±"
        f"{seat_band:g} pp of 1/n{' (default)' if seat_default else ''}; HP above the table "
        f"±{hp_band:g} HP{' (default)' if hp_default else ''}."
    )
    rows = []
    for seg in run.segments:
        if not seg.homogeneous:
            continue
        f = seat_figures(run, seg, seat_band)
        p = seg.players
        worst = max(range(p), key=lambda s: abs(f.win_single[s].value - 1 / p))
        w = f.win_single[worst].scaled(100, -100 / p)
        rows.append({"players": p, "field": seg.field_name, "figure": "seat win share − 1/n (pp)",
                     "worst seat": worst, "value": round(w.value, 2), "low": round(w.low, 2),
                     "high": round(w.high, 2), "band": seat_band, "verdict": overall(f.verdicts)})
        hp_verdicts = [verdict(f.above[s], hp_band) for s in range(p)]
        worst = max(range(p), key=lambda s: abs(f.above[s].value))
        a = f.above[worst]
        rows.append({"players": p, "field": seg.field_name, "figure": "HP above the table mean",
                     "worst seat": worst, "value": round(a.value, 2), "low": round(a.low, 2),
                     "high": round(a.high, 2), "band": hp_band, "verdict": overall(hp_verdicts)})
    if not rows:
        sec.text.append("No homogeneous field in this run: the seat verdicts need one.")
    df = pd.DataFrame(rows, columns=["players", "field", "figure", "worst seat", "value", "low",
                                     "high", "band", "verdict"])
    sec.tables.append(Table("verdicts", "Headline verdicts", df,
                            note="Worst seat: the seat furthest from fair; the figure's verdict is "
                                 "out of band if any seat is, in band only if every seat is."))
    multi = df.groupby(["players", "figure"])["field"].nunique()
    if (multi > 1).any():
        spread = (df.groupby(["players", "figure"])["value"].agg(["min", "max"])
                  .assign(spread=lambda d: d["max"] - d["min"]).round(2).reset_index())
        sec.tables.append(Table("verdict_spread", "Spread of the headline figures across fields",
                                spread, note="Which bots played is often a larger uncertainty than "
                                             "sampling: compare this spread with the intervals."))
    card_band, card_default = b["card_open_hand_pp"]
    card_rows = []
    for seg in run.segments:
        c = segment_cards(run, seg, card_band)
        inside = int(((c["contrast_sim_low"] >= -card_band) & (c["contrast_sim_high"] <= card_band)).sum())
        card_rows.append({"players": seg.players, "field": seg.field_name, "cards": len(c),
                          "flagged (out of band)": int(c["flagged"].sum()),
                          "shown in band": inside,
                          "inconclusive": len(c) - inside - int(c["flagged"].sum()),
                          "band (pp)": card_band,
                          "flagged cards": ", ".join(c.loc[c["flagged"], "name"])})
    sec.tables.append(Table("card_verdicts", "Cards: opening-hand effect against its type", pd.DataFrame(card_rows),
                            note=f"Band ±{card_band:g} pp{' (default)' if card_default else ''} on the "
                                 "within-type contrast; in band and flags use intervals "
                                 "simultaneous over the cards (details in Cards)."))
    return sec
