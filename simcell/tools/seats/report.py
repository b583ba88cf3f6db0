"""`simcell seats`: why seats differ. Each cause of seat advantage switched off alone (and all
together) on the same games as the config as it is: every seat's win share under each, with
the paired difference from the config as it is; then the starting-ATP schedules the search found,
screened on the config's seed and confirmed on fresh seeds before they are reported
(seats.json lists the runs)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports.changes import headline_changes, segment_sums
from simcell.reports.data import RunData
from simcell.reports.intervals import IN_BAND
from simcell.reports.render import Figure, Report, Section, Table, write_report
from simcell.reports.seat_table import seat_figures
from simcell.reports.seat_table import overall
from simcell.reports.style import POLICY_PALETTE, figure
from simcell.reports.estimates import fmt, interval_text
from simcell.vocabulary import SEATS_FILE
from simcell.reports.seat_table import worst_seat



def build_seats(folder: Path) -> Path:
    plan = json.loads((folder / SEATS_FILE).read_text())
    causes = plan["causes"]
    runs = [RunData(folder / c["run"]) for c in causes]
    bands = {k: float(v) for k, v in runs[0].resolved["report"]["bands"].items()}
    sec = Section("causes", "Why seats differ: each cause switched off", figures_first=True)
    sec.text.append(
        "The config as it is, then each cause of seat advantage switched off alone and all "
        f"together, on the same {runs[0].meta['games']:,} games (seed {runs[0].seed}): each seat's "
        "win share, and its paired difference from the config as it is (95% intervals). Verdict: "
        f"every seat within {runs[0].seat_band_label()} of the fair share.")
    rows, shown, diffs = [], [], []
    for si, seg in enumerate(runs[0].segments):
        if not seg.homogeneous:
            continue
        base = segment_sums(runs[0], seg)[0]
        for c, run in zip(causes, runs):
            s = run.segments[si]
            band = runs[0].seat_band(seg.players)
            f = seat_figures(run, s, band)
            head = headline_changes(seg, base, segment_sums(run, s)[0], True, bands | {"seat_win_share_pp": band})
            win = head[head["figure"].str.endswith("win share")].reset_index(drop=True)
            for seat in range(seg.players):
                rows.append({"players": seg.players, "field": seg.field_name, "variant": c["name"],
                             "seat": seat, "win_share_pp": f.win_single[seat].value * 100,
                             "low": f.win_single[seat].low * 100, "high": f.win_single[seat].high * 100,
                             "diff_pp": win.loc[seat, "difference"], "diff_low": win.loc[seat, "low"],
                             "diff_high": win.loc[seat, "high"], "verdict": overall(f.verdicts)})
            seats = [("first" if k == 0 else f"seat {k}") for k in range(seg.players)]
            shown.append({"players": seg.players, "variant": c["name"],
                          **{name: fmt(f.win_single[k], 100) for k, name in enumerate(seats)},
                          "verdict": overall(f.verdicts)})
            diffs.append({"players": seg.players, "variant": c["name"],
                          **{name: ("(the config as it is)" if c is causes[0] else
                                    interval_text(win.loc[k, "difference"], win.loc[k, "low"],
                                                  win.loc[k, "high"], 1, True))
                             for k, name in enumerate(seats)}})
    data = pd.DataFrame(rows)
    for (p, field), part in data.groupby(["players", "field"], sort=False):
        sec.figures.append(Figure(f"seat_causes_{p}p_{field}", f"Win share by seat under each change, {p}p",
                                  _bars(part, p, runs[0].seat_band(p)), "Bars: win share by seat (95% intervals); "
                                  "dashed: the fair share; green: the band."))
    sec.tables.append(Table("seat_causes", "Win share % by seat under each change (95% intervals)",
                            data, pd.DataFrame(shown)))
    sec.tables.append(Table("seat_causes_paired", "Each seat's change from the config as it is, pp "
                            "(paired on the same games, 95% intervals)",
                            data[["players", "field", "variant", "seat", "diff_pp", "diff_low", "diff_high"]],
                            pd.DataFrame(diffs),
                            note="The same games under each change: the interval is that of the "
                                 "paired difference, narrower than the two win shares' own."))
    sections = [sec]
    search = plan.get("search")
    if search:
        s2 = Section("schedule", "A starting-ATP schedule for fair seats")
        tried = pd.DataFrame(search["trials"])
        confirmed = []
        for c in search["confirmed"]:
            for r in worst_seat(RunData(folder / c["run"])):
                confirmed.append({"schedule": str(c["schedule"]), **r})
        conf = pd.DataFrame(confirmed)
        fair = conf[conf["verdict"] == IN_BAND]["schedule"].unique() if len(conf) else []
        s2.text.append(
            f"{len(tried)} schedules screened on {search['screen_games']:,} games per player count "
            f"(seed {runs[0].seed}, the same games for each); the best {len(search['confirmed'])} "
            f"then played again on fresh seeds (seed {search['confirm_seed']}, "
            f"{search['confirm_games']:,} games) before they are reported. "
            + (f"Confirmed in band: {', '.join(fair)}." if len(fair) else
               "No schedule was confirmed in band: widen the search (--trials) or look at the other "
               "causes above."))
        if len(conf):
            s2.tables.append(Table("schedule_confirmed", "Best schedules, confirmed on fresh seeds", conf,
                                   conf.assign(**{"worst seat − fair (95%)": [
                                       interval_text(v, lo, hi, 2, True) for v, lo, hi in
                                       zip(conf["distance_pp"], conf["low"], conf["high"])]})[
                                       ["schedule", "players", "worst seat", "worst seat − fair (95%)", "verdict"]]))
        s2.tables.append(Table("schedule_screen", "Every schedule screened", tried,
                               tried.assign(schedule=tried["schedule"].map(str),
                                            objective=tried["objective"].round(2))[["schedule", "objective"]],
                               note="Objective: the largest distance of a seat's win share from the "
                                    "fair share (pp) over the player counts, on the screening games.",
                               collapsed=True))
        sections.append(s2)
    write_report(Report("simcell seats: why seats differ", sections), folder)
    return folder


def _bars(part: pd.DataFrame, players: int, band: float):
    variants = list(dict.fromkeys(part["variant"]))
    fig, ax = figure(figsize=(7.5, 4.0))
    width = 0.8 / len(variants)
    for i, v in enumerate(variants):
        d = part[part["variant"] == v]
        x = d["seat"].to_numpy() + (i - (len(variants) - 1) / 2) * width
        ax.bar(x, d["win_share_pp"], width, color=POLICY_PALETTE[i % len(POLICY_PALETTE)], label=v)
        ax.errorbar(x, d["win_share_pp"], yerr=[d["win_share_pp"] - d["low"], d["high"] - d["win_share_pp"]],
                    fmt="none", ecolor="black", capsize=1.5, lw=0.7)
    fair = 100 / players
    ax.axhline(fair, color="black", ls="--", lw=1)
    ax.axhspan(fair - band, fair + band, color="#228833", alpha=0.15)
    ax.set_xticks(np.arange(players), ["first"] + [f"seat {s}" for s in range(1, players)])
    ax.set_ylabel("win share (%)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(f"Win share by seat under each change, {players} players")
    return fig
