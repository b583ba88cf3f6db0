"""Seat advantage (docs/method.md §3), per player count and
homogeneous field: win share per seat with simultaneous intervals, the test of equal seats, HP
above the table by seat, Laureates retaken by the marker holder, goal HP and grey flasks by seat,
and the rule settings behind the figure."""

from __future__ import annotations


import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from simcell.reports.data import RunData
from simcell.reports.estimates import est_columns, fmt
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import figure, source_label
from simcell.reports.seat_table import SeatFigures, rounds_held, seat_figures, seat_name


# the config keys that move seat advantage (docs/config.md "Keys a designer reaches for"), read from
# the run's resolved game
def levers(run: RunData) -> pd.DataFrame:
    r, b = run.game["rules"], run.game["board"]
    rows = [
        ("rules.starting_atp", b["starting_atp"],
         "ATP each seat starts with: a steeper schedule compensates later seats"),
        ("overrides.board.goals.first_marker_hp", b["first_marker_hp"],
         "HP of the first marker on a goal card: what taking goals first is worth"),
        ("rules.laureates_holder_may_take", str(r["laureates_holder_may_take"]).lower(),
         "false: the marker holder may not retake Laureates, so the marker moves"),
        ("rules.turn_order", r["turn_order"],
         '"rotate": the marker passes to the next seat every round; Laureates no longer moves it'),
        ("rules.grey_per_player", r["grey_per_player"],
         "grey flasks one player may place per round (first come, first served)"),
        ("rules.laureates_once_each", str(r.get("laureates_once_each", False)).lower(),
         "true: no second Laureates visit until every player has made one, so the marker moves"),
        ("rules.placement_order", r.get("placement_order", "clockwise"),
         '"snake_round": even rounds place backwards, the holder last; "snake_pass": each pass '
         "round the table is followed by the same pass backwards"),
    ]
    return pd.DataFrame(rows, columns=["config key", "this run", "what it changes"]).astype(str)


SOURCE_SHOWN = 0.5  # HP: a source shown in the seat-gap table if some seat's share is this far from 0


def rule_settings(run: RunData) -> str:
    r = run.game["rules"]
    b = run.game["board"]
    return (f"starting ATP by seat {b['starting_atp']}, grey flasks per player per round "
            f"{r['grey_per_player']}, marker holder may take Laureates "
            f"{str(r['laureates_holder_may_take']).lower()}, turn order `{r['turn_order']}`"
            + (f", placement order `{r['placement_order']}`"
               if r.get("placement_order", "clockwise") != "clockwise" else "")
            + (", Laureates once each until all have visited" if r.get("laureates_once_each") else "")
            + (f", starting HP by seat {list(r['starting_hp_by_seat'])}"
               if any(r.get("starting_hp_by_seat", ())) else "")
            + (f", first goal markers {list(r['first_marker_hp'])} HP by claim order"
               if r.get("first_marker_hp") else "")
            + (f", goal cards closed until round {r['goals_open_round']}"
               if r.get("goals_open_round", 1) > 1 else "")
            + (", Laureates gives no goal marker" if r.get("laureates_marker_only") else ""))


def _figure(figs: list[SeatFigures], run: RunData):
    fig, axes = figure(ncols=len(figs), figsize=(max(4.0, 3.6 * len(figs)), 3.8), squeeze=False)
    for ax, f in zip(axes[0], figs):
        p = f.seg.players
        seats = np.arange(p)
        vals = np.array([w.value for w in f.win]) * 100
        lo = vals - np.array([w.low for w in f.win]) * 100
        hi = np.array([w.high for w in f.win]) * 100 - vals
        ax.bar(seats, vals, color="#4477aa", alpha=0.85)
        ax.errorbar(seats, vals, yerr=[lo, hi], fmt="none", ecolor="black", capsize=4)
        fair = 100 / p
        band_pp = run.seat_band(p)
        ax.axhline(fair, color="black", lw=1, ls="--", label="fair share 1/n")
        ax.axhspan(fair - band_pp, fair + band_pp, color="#228833", alpha=0.15, label="tolerance band")
        ax.set_xticks(seats, ["first" if s == 0 else str(s) for s in seats])
        ax.set_xlabel("seat")
        ax.set_ylabel("win share (%)")
        ax.set_title(f.seg.label)
    # below the panels: a legend inside would cover a bar
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", ncols=2,
               bbox_to_anchor=(0.5, -0.02), frameon=False)
    fig.suptitle("Win share by seat (simultaneous 95% intervals)")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def _holder_figure(figs: list[SeatFigures]):
    """Who holds the First Player Marker as each round starts, and the HP gap it buys."""
    fig, axes = figure(ncols=len(figs), figsize=(max(4.0, 3.6 * len(figs)), 3.6), squeeze=False)
    for ax, f in zip(axes[0], figs):
        rounds = np.arange(1, f.holder.shape[0] + 1)
        for s in range(f.seg.players):
            ax.plot(rounds, 100 * f.holder[:, s], marker="o", ms=3, lw=1.2,
                    label="first" if s == 0 else f"seat {s}")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole numbers
        ax.set_xlabel("round")
        ax.set_ylabel("holds the marker (% of games)")
        ax.set_ylim(0, 100)
        ax.set_title(f.seg.label)
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncols=min(5, len(labels)),
               bbox_to_anchor=(0.5, -0.02), frameon=False)
    fig.suptitle("First Player Marker holder at the start of each round")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def build(run: RunData) -> Section:
    sec = Section("seats", "Seat advantage")
    homo = [s for s in run.segments if s.homogeneous]
    if not homo:
        sec.text.append("No homogeneous field in this run: seat advantage is estimated only with "
                        "one policy in every seat (a mixed field answers a different question).")
        return sec
    b = run.game["board"]
    sec.text.append(
        "**Seat 0 is the first player**: it places first in round 1 and holds the First Player "
        "Marker; the others follow in seat order. The marker moves only when a player places at "
        "Laureates (docs/rules.md §2), and its holder starts every later round. Starting ATP by seat: "
        f"{', '.join(str(a) for a in b['starting_atp'])}. Figures come from fields with one "
        "policy in every seat, so a seat's figures reflect the seat, not the bot."
    )
    figs = [seat_figures(run, s, run.seat_band(s.players)) for s in homo]
    rows, shown = [], []
    for f in figs:
        p = f.seg.players
        for s in range(p):
            row = {"players": p, "field": f.seg.field_name, "seat": s}
            row.update(est_columns("win_share_pp", f.win[s], 100))
            row.update(est_columns("above_fair_pp", f.win_single[s], 100, -100 / p))
            row["verdict"] = f.verdicts[s]
            row.update(est_columns("hp_above_table", f.above[s]))
            for src, by_seat in f.above_by_source.items():
                row.update(est_columns(f"hp_above_table_{src}", by_seat[s]))
            row.update(est_columns("laureates_per_game", f.laureates[s]))
            row.update(est_columns("laureates_retake_share", f.retake[s]))
            row.update(est_columns("goal_markers_per_game", f.goal_markers[s]))
            row.update(est_columns("goal_hp", f.goal_hp[s]))
            row.update(est_columns("grey_flasks", f.grey[s]))
            rows.append(row)
            shown.append({
                "players": p, "seat": seat_name(s),
                "win share %": fmt(f.win[s], 100),
                "vs fair share, pp": fmt(f.win_single[s], 100, 1, -100 / p),
                "verdict": f.verdicts[s],
                "HP above the table mean": fmt(f.above[s], 1, 2),
            })
    data = pd.DataFrame(rows)
    single = len(figs) == 1
    view = pd.DataFrame(shown).drop(columns=["players"] if single else [])
    sec.tables.append(Table("seat_advantage", "Seats: win share and HP above the table", data, view,
                            note=f"Win share splits ties; intervals: simultaneous 95% over the seats. "
                                 f"Verdict: win share minus the fair share 1/n against the band "
                                 f"{run.seat_band_label()}."))
    # one row per seat and a column per source: a column per seat would leave the 2-player rows
    # three empty cells in a 2-5-player run
    srcs = [src for src in figs[0].above_by_source
            if any(abs(e.value) >= SOURCE_SHOWN for f in figs for e in f.above_by_source[src].values())]
    src_rows = []
    for f in figs:
        for s in range(f.seg.players):
            r = {} if single else {"players": f.seg.players}
            r["seat"] = "first" if s == 0 else f"seat {s}"
            r.update({source_label(src): fmt(f.above_by_source[src][s], 1, 2) for src in srcs})
            r["all sources"] = fmt(f.above[s], 1, 2)
            src_rows.append(r)
    sec.tables.append(Table("seat_hp_sources", "Where the seat gap comes from: HP above the table mean, by source",
                            data[["players", "field", "seat"] + [c for c in data.columns
                                                                 if c.startswith("hp_above_table")]],
                            pd.DataFrame(src_rows).fillna(""),
                            note=f"A seat's HP minus the mean of its table, source by source; the "
                                 f"sources add up to the total, those within ±{SOURCE_SHOWN:g} HP for "
                                 f"every seat left out here (every source: the CSV)."))
    marker_rows = []
    for f in figs:
        for s in range(f.seg.players):
            r = {} if single else {"players": f.seg.players}
            r.update({
                "seat": seat_name(s),
                "holds the marker in most games": rounds_held(f.holder[:, s]) or "no round",
                "Laureates per game": fmt(f.laureates[s], 1, 2),
                "… while holding the marker %": fmt(f.retake[s], 100),
                "goal markers per game": fmt(f.goal_markers[s], 1, 2),
                "goal HP": fmt(f.goal_hp[s], 1, 2),
                "grey flasks per game": fmt(f.grey[s], 1, 2),
            })
            marker_rows.append(r)
    sec.tables.append(Table("seat_marker", "The First Player Marker, Laureates and goal markers by seat",
                            data[["players", "field", "seat"] + [c for c in data.columns if c.startswith((
                                "laureates", "goal", "grey"))]],
                            pd.DataFrame(marker_rows),
                            note="Laureates while holding: the share of a seat's Laureates placements "
                                 "made when it already held the marker (it keeps the marker and its "
                                 "first pick of goals).", collapsed=True))
    holder_rows = [{"players": f.seg.players, "field": f.seg.field_name, "round": r + 1, "seat": s,
                    "holder_share": f.holder[r, s], "holder_share_se": f.holder_se[r, s]}
                   for f in figs for r in range(f.holder.shape[0]) for s in range(f.seg.players)]
    # printed once, on the front sheet (the same bars and intervals); here on screen
    sec.figures.append(Figure("seat_win_share", "Win share by seat", _figure(figs, run),
                              "Bars: win share by seat; whiskers: simultaneous 95% intervals; "
                              "dashed: the fair share 1/n; green: the tolerance band (printed on the "
                              "front sheet).", printed=False))
    worst_se = max(float(np.nanmax(f.holder_se)) for f in figs)
    sec.figures.append(Figure("seat_marker_holder", "First Player Marker holder by round",
                              _holder_figure(figs),
                              "Share of games in which each seat holds the marker as the round "
                              f"starts (largest standard error {100 * worst_se:.2f} pp; table "
                              "`tables/seat_marker_by_round.csv`)."))
    sec.tables.append(Table("seat_marker_by_round", "Marker holder by round", pd.DataFrame(holder_rows),
                            csv_only=True))
    lever_table = levers(run)
    # shown, a key may break after a dot (a zero-width space), not inside a word, to fit A4
    lever_shown = lever_table.assign(**{"config key": lever_table["config key"].str.replace(".", ".\u200b")})
    sec.tables.append(Table("seat_levers", "Levers: the config keys that move seat advantage",
                            lever_table, lever_shown, note="Set them in a run config's `[rules]` or "
                                              "`[overrides.board.goals]` table (docs/config.md, Keys a "
                                              "designer reaches for)."))
    tests = pd.DataFrame([{"players": f.seg.players, "field": f.seg.field_name,
                           "test": f.test.name, "statistic": round(f.test.statistic, 3),
                           "df": f.test.df, "p_value": f.test.p_value} for f in figs])
    sec.tables.append(Table("seat_equality_test", "Test of equal seats", tests,
                            tests.assign(p_value=tests["p_value"].map(lambda x: f"{x:.3g}")),
                            note=_p_value_note(figs), collapsed=True))
    return sec


def _p_value_note(figs: list[SeatFigures]) -> str:
    """What the p-value can and cannot say at this run's size."""
    detectable = max(2.8 * w.se * 100 for f in figs for w in f.win_single)
    return (f"With this many games a seat difference of {detectable:.2f} pp is detected 80% of the "
            "time (a 5% test): read the verdicts against the band, not the p-value.")
