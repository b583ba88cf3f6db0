"""Where the HP come from: mean HP per source by seat, by policy, for winners and others, and
each source's share of the variance of final HP (what actually decides games): Cov(source,
final) / Var(final), which adds up to 1 over the sources because the sources add up to the
final HP."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from simcell.vocabulary import HP_SOURCES
from simcell.reports.data import HP_SOURCE_COLUMNS, RunData, SegmentInfo
from simcell.reports.estimates import Blocks, BlockSums, ci_of, est_columns, fmt
from simcell.reports.intervals import jackknife, jackknife_ratio
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import SOURCE_COLOURS, figure, source_label


def variance_sums(run: RunData, seg: SegmentInfo, df: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per-block sums behind the variance shares: n, y, y^2 (y = final HP) and, per source x,
    x and x y. The sums over parts add up to those over the run."""
    per_block = Blocks(run.block_of_games(seg, df["game"].to_numpy()), seg.blocks).totals
    y = df["final_hp"].to_numpy(np.float64)

    out = {"n": per_block(np.ones_like(y)), "y": per_block(y), "yy": per_block(y * y)}
    for c in HP_SOURCE_COLUMNS:
        x = df[c].to_numpy(np.float64)
        out[f"x:{c}"], out[f"xy:{c}"] = per_block(x), per_block(x * y)
    return out


def variance_shares(sums: dict[str, np.ndarray]) -> dict[str, object]:
    """Each source's share of Var(final HP) over players, jackknifed over blocks."""

    def share(n, sy, syy, sx, sxy):
        cov = sxy / n - (sx / n) * (sy / n)
        var = syy / n - (sy / n) ** 2
        return cov / var if var > 0 else np.nan

    return {c[3:]: jackknife(share, sums["n"], sums["y"], sums["yy"], sums[f"x:{c}"], sums[f"xy:{c}"])
            for c in HP_SOURCE_COLUMNS}


def build(run: RunData) -> Section:
    sec = Section("sources", "Where the HP come from")
    sec.text.append(
        "Mean HP per player from each source (docs/rules.md §8), by seat and by policy, for winners "
        "(players with a share of the win) and the others; and each source's share of the "
        "differences in final HP between players (its covariance with final HP over the variance "
        "of final HP): the sources that decide games have large shares, whatever their mean. The "
        "tables are folded at the end of the section."
    )
    rows, shown, var_rows = [], [], []
    fig_data = []
    columns = HP_SOURCE_COLUMNS + ["final_hp"]
    for seg in run.segments:
        groups = [("all players", None, None, 1), ("by seat", "seat", None, seg.players),
                  ("by policy", "policy", seg.policies, len(seg.policies)),
                  ("winners and others", "winner", ("others", "winners"), 2)]
        groups = [g for g in groups if not (g[1] == "policy" and seg.homogeneous)]
        # one pass over the records, part file by part file (memory does not grow with the run)
        totals = [BlockSums(seg.blocks, columns, key, n) for _, key, _, n in groups]
        var_sums = None
        for df in run.record_parts("players", seg, ["policy", "final_hp", "win_share"] + HP_SOURCE_COLUMNS):
            df["winner"] = (df["win_share"].to_numpy() > 0).astype(np.int8)
            blocks = run.block_of_games(seg, df["game"].to_numpy())
            for t in totals:
                t.add(blocks, df)
            part = variance_sums(run, seg, df)
            var_sums = part if var_sums is None else {c: var_sums[c] + v for c, v in part.items()}
        for (label, key, names, _), total in zip(groups, totals):
            sums = total.frame()
            parts = [(None, sums)] if key is None else list(sums.groupby(level=key))
            for k, part in parts:
                value = "all" if k is None else (names[int(k)] if names else str(k))
                row = {"players": seg.players, "field": seg.field_name, "group": label, "value": value}
                srow = dict(row)
                for c in HP_SOURCE_COLUMNS + ["final_hp"]:
                    e = jackknife_ratio(part[c].to_numpy(), part["rows"].to_numpy())
                    row.update(est_columns(c, e))
                    srow[source_label(c[3:]) if c != "final_hp" else "final HP"] = fmt(e, 1, 2)
                rows.append(row)
                shown.append(srow)
                if key == "seat":
                    fig_data.append((seg, int(k), {c[3:]: row[c] for c in HP_SOURCE_COLUMNS}))
        shares = variance_shares(var_sums)
        for src, e in shares.items():
            var_rows.append({"players": seg.players, "field": seg.field_name, "source": src,
                             **est_columns("variance_share", e)})
    rows_df, shown_df = pd.DataFrame(rows), pd.DataFrame(shown)
    # a source no player scored from in this run (starting HP where the rules give none) is a
    # column of zeros on screen: left to the CSV, so the table keeps to the page
    unused = [source_label(c[3:]) for c in HP_SOURCE_COLUMNS if (rows_df[c] == 0).all()]
    sec.tables.append(Table("hp_by_source", "Mean HP per player by source", rows_df,
                            shown_df.drop(columns=unused), collapsed=True,
                            note=(f"No player scored from {', '.join(unused)} in this run: "
                                  "the CSV keeps the column." if unused else "")))
    vdf = pd.DataFrame(var_rows)
    vshown = vdf[["players", "field", "source"]].assign(
        source=vdf["source"].map(source_label),
        **{"share of Var(final HP) %": ci_of(vdf, "variance_share", scale=100)})
    sec.tables.append(Table("hp_variance_share", "Share of the variance of final HP by source",
                            vdf, vshown, note="Shares add up to 100% within a player count and field.",
                            collapsed=True))
    sec.figures.append(Figure("hp_by_source_seat", "Mean HP by source and seat",
                              _stacked(fig_data), "Mean HP per player by source, per seat."))
    sec.figures.append(Figure("hp_variance_share", "What decides games", _variance(vdf),
                              "Each source's share of the variance of final HP (95% intervals)."))
    return sec


GROUP_GAP = 0.8  # space between two groups of bars, in bar slots
SLOT_IN = 0.55  # width of a bar slot, inches: room for a "seat 0" tick label
CHAR_IN = 0.08  # width of a character of a group name at 9 pt, inches (generous)
AXES_SHARE = 0.775  # the axes' share of the figure's width (matplotlib's subplot margins)


def _group_name(seg: SegmentInfo, width_in: float) -> str:
    """A group's name under its bars: on one line if it fits the group's width, else the player
    count above the field name, the field name wrapped to the width."""
    name = f"{seg.players}p · {seg.field_name}"
    if len(name) * CHAR_IN <= width_in:
        return name
    return f"{seg.players}p\n" + textwrap.fill(seg.field_name, max(6, int(width_in / CHAR_IN)))


def _stacked(data):
    """Stacked bars per seat, grouped by player count and field: "seat s" under each bar and the
    group's name under its seats (a full label under every bar does not fit beyond a few)."""
    segs = list(dict.fromkeys(seg for seg, _, _ in data))
    x, groups, start = [], [], 0.0
    for seg in segs:
        n = sum(1 for sg, _, _ in data if sg == seg)
        x += [start + i for i in range(n)]
        groups.append((seg, start + (n - 1) / 2, n))
        start += n + GROUP_GAP
    x = np.array(x)
    span = start - GROUP_GAP + 0.2  # x limits: half a slot and a bit beyond the end bars
    fig, ax = figure(figsize=(max(6.0, SLOT_IN * span / AXES_SHARE), 4.6))
    slot_in = ax.get_position().width * fig.get_figwidth() / span
    bottom = np.zeros(len(x))
    for src in HP_SOURCES:
        vals = np.array([d[src] for _, _, d in data])
        if not vals.any():
            continue
        ax.bar(x, vals, bottom=bottom, color=SOURCE_COLOURS[src], label=source_label(src), width=0.75)
        bottom += vals
    ax.set_xticks(x, [f"seat {s}" for _, s, _ in data], fontsize=8)
    ax.set_xlim(-0.6, start - GROUP_GAP - 0.4)
    for seg, centre, n in groups:  # the group's name under its seat labels (x: data, y: axes)
        ax.annotate(_group_name(seg, slot_in * (n + GROUP_GAP * 0.75)), (centre, 0),
                    xycoords=ax.get_xaxis_transform(), xytext=(0, -20), textcoords="offset points",
                    ha="center", va="top", fontsize=9, annotation_clip=False)
    ax.set_ylabel("mean HP per player")
    ax.set_title("Mean HP by source and seat")
    ax.legend(ncols=2, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def _variance(vdf: pd.DataFrame):
    segs = list(dict.fromkeys(zip(vdf["players"], vdf["field"])))
    fig, ax = figure(figsize=(7.5, 4.2))
    width = 0.8 / max(1, len(segs))
    sources = list(HP_SOURCES)
    handles = []
    for i, (p, f) in enumerate(segs):
        part = vdf[(vdf["players"] == p) & (vdf["field"] == f)].set_index("source").reindex(sources)
        x = np.arange(len(sources)) + i * width
        v = part["variance_share"].to_numpy() * 100
        err = [v - part["variance_share_low"].to_numpy() * 100, part["variance_share_high"].to_numpy() * 100 - v]
        alpha = 1.0 - 0.5 * i / max(1, len(segs))
        ax.bar(x, v, width, color=[SOURCE_COLOURS[s] for s in sources], alpha=alpha,
               edgecolor="black", linewidth=0.3)
        ax.errorbar(x, v, yerr=err, fmt="none", ecolor="black", capsize=2, lw=0.8)
        # the bars take their source's colour: the legend tells the segments apart by shade
        # and order, in grey
        handles.append(Patch(facecolor="#777777", alpha=alpha, edgecolor="black", linewidth=0.3,
                             label=f"{p}p · {f}"))
    ax.set_xticks(np.arange(len(sources)) + 0.4 - width / 2, [source_label(s) for s in sources], rotation=30, ha="right")
    ax.set_ylabel("share of Var(final HP) (%)")
    ax.set_title("What decides games: variance share by source")
    if len(segs) > 1:  # beside the axes: inside, it would cover the tallest bars
        ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0),
                  title="bars, left to right", title_fontsize=8)
    return fig
