"""`simcell probe`: what each card is worth to a player who goes for it. From probe.json's runs:
per player count, a baseline (the field's policy in every seat, a pool rotated over the seats)
and, per card, the same games with player 0 prioritising the card. Paired game by game on player
0, jackknifed over the shared blocks (reports/paired.py), averaged over the seats player 0 sits
in: its win share and completions of the card; and, to separate owning the card from denying
it, the same two figures for the strongest opponent (the seat with the highest baseline win
share other than player 0's)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports.units import in_atp, load_calibration
from simcell.reports.cards import bh_qvalues
from simcell.reports.data import RunData
from simcell.reports.paired import difference
from simcell.reports.render import Figure, Report, Section, Table, write_report
from simcell.reports.card_table import card_table
from simcell.reports.style import TYPE_COLOURS, figure, type_label
from simcell.reports.estimates import interval_text
from simcell.reports.deviation import check_paired, deviant_sums, seat_order
from simcell.vocabulary import PROBE_FILE


FIGURES = ("win share (pp)", "completes the card (% of games)", "strongest opponent's win share (pp)",
           "strongest opponent completes the card (% of games)")


def build_probe(folder: Path, calibration: Path | None = None) -> Path:
    plan = json.loads((folder / PROBE_FILE).read_text())
    cal = load_calibration(calibration) if calibration is not None else {}
    rows = []
    for part in plan["segments"]:
        base = RunData(folder / part["baseline"])
        seg = base.segments[0]
        p = seg.players
        cards = card_table(base).set_index("name")
        order = seat_order(base, seg)
        base_sums = deviant_sums(base, seg, order)
        for card in part["cards"]:
            run = RunData(folder / card["run"])
            check_paired(base, run, card["name"])
            cid = int(cards.loc[card["name"], "id"])

            def stat(t, cid=cid):
                g = t["games"]
                return np.array([t["w0"] / g * 100, t["k0"][cid] / g * 100,
                                 t["wo"] / g * 100, t["ko"][cid] / g * 100])

            d = difference(stat, base_sums, deviant_sums(run, run.segments[0], order))
            lo, hi = d.bounds()
            row = {"players": p, "field": plan["field"], "card": card["name"],
                   "type": cards.loc[card["name"], "type"], "games": seg.games,
                   "strongest_opponent_seat": int(order[0]), "p_win": d.p_values()[0]}
            for j, key in enumerate(("win", "completes", "opp_win", "opp_completes")):
                row |= {f"{key}_base": d.a[j], f"{key}_probe": d.b[j], f"{key}_diff": d.diff[j],
                        f"{key}_low": lo[j], f"{key}_high": hi[j]}
            per_atp = cal.get((p, plan["field"]), {}).get("win_pp_per_atp", np.nan)
            row["win_in_atp"] = in_atp(d.diff[0], per_atp) if cal else ""
            rows.append(row)
    table = pd.DataFrame(rows)
    table["q_win"] = np.nan
    for _p, idx in table.groupby("players").groups.items():
        table.loc[idx, "q_win"] = bh_qvalues(table.loc[idx, "p_win"].to_numpy())
    table = table.sort_values(["players", "win_diff"], ascending=[True, False], kind="stable")
    sec = Section("probe", "What each card is worth to a player who goes for it", figures_first=True)
    sec.text.append(
        f"One player plays {plan['policy']} with one card worth {plan['favour']:g} times as much to it "
        f"(`favour_card`, `favour`), the others {plan['policy']} as configured; the same games with "
        f"that player unmodified are the baseline (seed {base.seed}, {seg.games:,} games per run). "
        "The player sits in every seat in turn; each figure is its mean over the seats, paired game "
        "by game with the baseline (95% intervals, jackknife over the shared blocks). **Owning**: "
        "the probing player's change in win share. **Denying**: the strongest opponent's change, "
        "and how much less often that opponent completes the card; win share is shared, so the "
        "probing player's gain comes out of the opponents', the strongest one's part shown here.")
    for p, part in table.groupby("players", sort=False):
        low = part.loc[part["completes_probe"] < 2 * part["completes_base"], "card"].tolist()
        sec.text.append(
            f"{p} players: the probe completes its card {part['completes_probe'].sum() / max(part['completes_base'].sum(), 1e-9):.1f}× "
            f"as often as the unmodified player, over all cards"
            + (f"; less than twice as often for {', '.join(low)}." if low else
               "; at least twice as often for every card."))
        sec.figures.append(Figure(f"probe_{p}p", f"Win share from going for each card, {p}p",
                                  _figure(part, p),
                                  "The probing player's change in win share (owning) and the strongest "
                                  "opponent's (denying), with 95% paired intervals; cards ranked by "
                                  "the probing player's change."))

    def span(key):
        return [interval_text(d, lo, hi, 2, True) for d, lo, hi in
                zip(table[f"{key}_diff"], table[f"{key}_low"], table[f"{key}_high"])]

    shown = table[["players", "card"]].assign(**{
        "type": [type_label(t) for t in table["type"]],
        "win share change, pp": span("win"),
        "q (BH)": table["q_win"].map(lambda q: f"{q:.3f}"),
        "completes it, % of games": [f"{b:.1f} → {a:.1f}" for b, a in zip(table["completes_base"],
                                                                       table["completes_probe"])],
        "strongest opponent's win share change, pp": span("opp_win"),
        "strongest opponent completes it, pp": span("opp_completes"),
    })
    if cal:
        shown["in ATP"] = table["win_in_atp"]
    sec.tables.append(Table("probe", "Cards ranked by the win share a player gains by going for them",
                            table, shown,
                            note="q: Benjamini–Hochberg over the cards of a player count, of the "
                                 "win share change. Completion: games in which the player completes "
                                 "the card, baseline → probe."))
    write_report(Report("simcell probe: what each card is worth to a player who goes for it", [sec]), folder)
    return folder


def _figure(part: pd.DataFrame, players: int):
    part = part.iloc[::-1]  # the largest gain at the top
    n = len(part)
    fig, ax = figure(figsize=(7.5, max(2.6, 0.24 * n + 1.2)))
    y = np.arange(n)
    for key, dy, colour, label in (("win", 0.15, "#4477aa", "probing player (owning)"),
                                   ("opp_win", -0.15, "#ee6677", "strongest opponent (denying)")):
        d = part[f"{key}_diff"].to_numpy()
        err = [d - part[f"{key}_low"].to_numpy(), part[f"{key}_high"].to_numpy() - d]
        ax.errorbar(d, y + dy, xerr=err, fmt="o", ms=3, capsize=2, color=colour, label=label)
    ax.axvline(0, color="#555555", lw=0.8)
    ax.set_yticks(y, part["card"])
    for tick, t in zip(ax.get_yticklabels(), part["type"]):
        tick.set_color(TYPE_COLOURS.get(t, "#333333"))
    ax.tick_params(axis="y", labelsize=8)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("change in win share, pp")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
