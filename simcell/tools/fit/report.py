"""`simcell fit`'s report, from fit.json alone: at each player count, the field's exploitability
round by round (the best deviation's gain on fresh deals, 95% interval over deals), how the fit
stopped, and the worths it moved."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports.estimates import interval_text
from simcell.reports.render import Figure, Report, Section, Table, write_report
from simcell.reports.style import figure
from simcell.vocabulary import FITTED_FILE, FIT_FILE

STOPPED = {"fitted": "no deviation gains more than the band",
           "noise": "the best deviation gains more than the band but not beyond noise (more deals would tell)",
           "rounds": "the round limit", "budget": "the time budget"}


def fit_sentences(folder: Path) -> list[str]:
    """One sentence per player count: rounds, time, exploitability before and after."""
    plan = json.loads((Path(folder) / FIT_FILE).read_text())
    out = []
    for c in plan["counts"]:
        b, a = c["before"], c["after"]
        out.append(
            f"{c['players']} players: {len(c['rounds'])} round(s) in {c['minutes']:.1f} min, stopped by "
            f"{STOPPED[c['stopped']]}; exploitability {b['gain_pp']:+.2f} pp ({b['low']:+.2f} to "
            f"{b['high']:+.2f}, {b['label']}) before, {a['gain_pp']:+.2f} pp ({a['low']:+.2f} to "
            f"{a['high']:+.2f}, {a['label']}) after, band {plan['settings']['band']:g} pp.")
    return out


def _rounds(plan: dict) -> pd.DataFrame:
    rows = []
    for c in plan["counts"]:
        for r in c["rounds"]:
            b = r["best"]
            rows.append({"players": c["players"], "round": r["round"], "best_deviation": b["label"],
                         "screen_best_pp": r["screen"][0]["screen_pp"], "gain_pp": b["gain_pp"],
                         "low": b["low"], "high": b["high"], "adopted": bool(r.get("adopted")),
                         "seconds": r["seconds"]})
    return pd.DataFrame(rows)


def _moves(plan: dict) -> pd.DataFrame:
    rows = []
    for c in plan["counts"]:
        for k in plan["names"]:
            a, b = c["start"][k], c["fitted"][k]
            rows.append({"players": c["players"], "worth": k, "start": a, "fitted": b,
                         "factor": b / a if a else np.nan})
    return pd.DataFrame(rows)


def _figure(rounds: pd.DataFrame, band: float):
    fig, ax = figure(figsize=(7.0, 3.2))
    counts = sorted(rounds["players"].unique())
    for j, p in enumerate(counts):
        part = rounds[rounds["players"] == p]
        x = part["round"].to_numpy() + (j - (len(counts) - 1) / 2) * 0.08
        d = part["gain_pp"].to_numpy()
        ax.errorbar(x, d, yerr=[d - part["low"].to_numpy(), part["high"].to_numpy() - d], fmt="o-",
                    ms=3, capsize=2, label=f"{p} players")
    ax.axhline(band, color="#aa3377", lw=0.8, ls="--", label=f"band {band:g} pp")
    ax.axhline(0, color="#555555", lw=0.8)
    ax.set_xlabel("round")
    ax.set_ylabel("best deviation's gain, pp")
    ax.set_xticks(sorted(rounds["round"].unique()))
    ax.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def build_fit(folder: Path) -> Path:
    plan = json.loads((folder / FIT_FILE).read_text())
    s = plan["settings"]
    rounds = _rounds(plan)
    sec = Section("fit", f"The {plan['policy']} field fitted by self-play", figures_first=True)
    sec.text.append(
        f"Each round one player deviates from the field while the others play it, every deal under "
        f"every seat order (duplicate mode: the deviating player sits in each seat, the deal's luck "
        f"cancels). The deviations: `simcell exploit`'s family and {s['trials']} found by a CMA-ES "
        f"search over {len(plan['names'])} worths (each within x1/{s['span']:g} to x{s['span']:g} "
        f"of the field's), on {s['deals']:,} deals; the best {s['confirm']} played again on "
        f"{s['holdout_deals']:,} fresh deals. The best there is the field's exploitability (95% "
        f"interval over deals). Beyond the band ({s['band']:g} pp) and beyond noise, the field moves "
        f"{s['step']:g} of the way (in log) towards it.")
    sec.text += fit_sentences(folder)
    if plan.get("fitted_config"):
        sec.text.append(f"`{FITTED_FILE}` holds the fitted worths at each count; "
                        f"`simcell run {plan['fitted_config']}` plays them.")
    sec.figures.append(Figure("fit_rounds", "The field's exploitability, round by round",
                              _figure(rounds, s["band"]), "The best deviation's gain on fresh deals "
                              "(95% interval); the fit stops once it is within the band."))
    shown = rounds[["players", "round", "best_deviation"]].assign(**{
        "gain on fresh deals, pp": [interval_text(d, lo, hi, 2, True) for d, lo, hi in
                                    zip(rounds["gain_pp"], rounds["low"], rounds["high"])],
        "screen, pp": rounds["screen_best_pp"].map(lambda v: f"{v:+.2f}"),
        "field moved": rounds["adopted"].map({True: "yes", False: "no"})})
    sec.tables.append(Table("fit_rounds", "Rounds: the best deviation and whether the field moved",
                            rounds, shown))
    moves = _moves(plan)
    moved = moves[(moves["factor"] - 1).abs() > 0.005]
    sec.tables.append(Table("fit_worths", "The worths the fit moved (start → fitted)", moves,
                            moved.assign(start=moved["start"].map("{:.3g}".format),
                                         fitted=moved["fitted"].map("{:.3g}".format),
                                         factor=moved["factor"].map("x{:.2f}".format))))
    write_report(Report("simcell fit: a field no player gains much by leaving", [sec]), folder)
    return folder
