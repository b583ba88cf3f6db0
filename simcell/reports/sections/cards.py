"""The card section: for each card and player count, the opening-hand effect (headline), the
within-type contrast with flags, shrinkage and rank intervals, market figures, efficiency, and
the association of completing it with winning (labelled as association)."""

from __future__ import annotations


import numpy as np
import pandas as pd

from simcell.reports.data import RunData, SegmentInfo
from simcell.reports.estimates import ci_of
from simcell.reports.intervals import IN_BAND, OUT_OF_BAND
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import TYPE_COLOURS, figure, label_column_height, name_points, type_label
from simcell.reports import cards as cs
from simcell.reports.card_table import card_verdict, segment_cards, segment_types


TOP = 3  # strongest and weakest cards shown in the body, beside every card out of band


def _top_cards(allc: pd.DataFrame, band: float) -> Table:
    """The cards a designer looks at first: every card out of band and the strongest and weakest
    by their type, per player count and field."""
    picked = []
    for _, part in allc.groupby(["players", "field"], sort=False):
        ranked = part[np.isfinite(part["contrast_pp"])].sort_values("contrast_pp", ascending=False)
        keep = set(ranked.index[:TOP]) | set(ranked.index[-TOP:]) | set(part.index[part["flagged"]])
        picked.append(ranked.loc[[i for i in ranked.index if i in keep]])
    top = pd.concat(picked)
    top = top.assign(verdict=card_verdict(top, band))
    many = top["players"].nunique() > 1 or top["field"].nunique() > 1
    shown = pd.DataFrame({
        **({"players": top["players"]} if many else {}),
        "card": top["name"], "type": top["type"].map(type_label),
        "against its type, pp": ci_of(top, "contrast_pp", sign=True),
        "opening-hand effect, pp": ci_of(top, "open_hand_win_pp", sign=True),
        "verdict": top["verdict"],
        "pick rate %": ci_of(top, "pick_rate", scale=100),
        "completed %": ci_of(top, "completion_rate", scale=100),
    })
    cols = ["players", "field", "card", "name", "type", "contrast_pp", "contrast_pp_low", "contrast_pp_high",
            "open_hand_win_pp", "open_hand_win_pp_low", "open_hand_win_pp_high", "verdict", "pick_rate",
            "pick_rate_low", "pick_rate_high", "completion_rate", "completion_rate_low",
            "completion_rate_high"]
    # printed: the cards out of band; the strongest and weakest still in or near the band are
    # folded beneath on screen (every card: tables/card_strength.csv)
    out = (top["verdict"] == OUT_OF_BAND).to_numpy()
    note = (f"Band ±{band:g} pp; 95% intervals; {int(out.sum())} out of band over the player counts "
            "and fields. Pick rate: purchases per Phase 1 in a Card Area slot; completed: of the "
            "players who kept or bought it.")
    if not many:
        return Table("card_top", "Cards out of band against their type", top[cols], shown[out],
                     rest=shown[~out], rest_title=f"the {TOP} strongest and weakest cards not out of band",
                     note=note + f" The {TOP} strongest and weakest that are not are folded below on "
                                 "screen (every card: `tables/card_strength.csv`).")
    # several player counts: one row per card out of band somewhere, a column per count (a row per
    # card and count filled pages at 2-5 players)
    return Table("card_top", "Cards out of band against their type, at each player count", top[cols],
                 by_count(allc, band), rest=shown, rest_title="each of them, and the strongest and "
                 "weakest, with pick and completion rates",
                 note=note + " A cell: the card against its type, pp; 'out' where it is out of band. "
                             "Every card: `tables/card_strength.csv`.")


def _types_by_count(types: pd.DataFrame) -> pd.DataFrame:
    """Each type's gap at every player count (and field), with its simultaneous interval and
    verdict, one row per type."""
    names = list(dict.fromkeys(types["type"]))
    two = types["field"].nunique() > 1
    out = pd.DataFrame({"type": [type_label(t) for t in names]})
    for (p, field), part in types.groupby(["players", "field"], sort=False):
        part = part.set_index("type").reindex(names)
        out[f"{p}p" + (f" · {field}" if two else "")] = [
            f"{g:+.1f} ({lo:+.1f} to {hi:+.1f}) {v}" for g, lo, hi, v in
            zip(part["gap_pp"], part["gap_pp_sim_low"], part["gap_pp_sim_high"], part["verdict"])]
    return out


def by_count(allc: pd.DataFrame, band: float) -> pd.DataFrame:
    """The cards out of band at some player count (and field): each one's contrast at every
    count, marked where it is out of band."""
    allc = allc.assign(verdict=card_verdict(allc, band))
    names = list(dict.fromkeys(allc.loc[allc["verdict"] == OUT_OF_BAND, "name"]))
    two = allc["field"].nunique() > 1
    out = pd.DataFrame({"card": names,
                        "type": [type_label(allc.loc[allc["name"] == n, "type"].iloc[0]) for n in names]})
    for (p, field), part in allc.groupby(["players", "field"], sort=False):
        part = part.set_index("name").reindex(names)
        text = ci_of(part.reset_index(), "contrast_pp", sign=True)
        out[f"{p}p" + (f" · {field}" if two else "")] = [
            f"{t} out" if v == OUT_OF_BAND else t for t, v in zip(text, part["verdict"])]
    return out


def build(run: RunData, band_pp: float, type_band: float) -> Section:
    sec = Section("cards", "Cards")
    sec.text += [
        "**Opening-hand effect**: how much more often a player wins when a card is among the "
        "three dealt at setup, in percentage points (pp) of win share, against the other players "
        "of the same game. The deal is random, so this is what holding the card does for a "
        "player, not how good the players who choose it are. Each game's difference is taken "
        "less the part the players' seats explain (fitted on the other half of the games), which "
        "removes the seats' luck without moving the estimate: the intervals are narrower by the "
        "variance ratio in the CSV (`contrast_variance_ratio`).",
        "**Against its type**: the card's effect minus its type's reference, the middle of the "
        "other cards of its type (their mean while they lie close together; a card "
        f"{cs.REFERENCE_BANDS:g} bands or more from the rest counts for nothing in it, so one card "
        "far out of line does not move the others); types differ by design, so a card is judged "
        "against its own type. A card is "
        f"**out of band** when it is shown to lie outside ±{band_pp:g} pp, allowing for testing "
        "every card at once (Notes on method). Full tables for every card are folded at the end "
        "of this section and written as CSV.",
    ]
    frames = [segment_cards(run, seg, band_pp) for seg in run.segments]
    allc = pd.concat(frames, ignore_index=True)
    strength = allc[["players", "field", "card", "name", "type", "games_dealt"]].assign(type=allc["type"].map(type_label), **{
        "opening-hand effect, win pp": ci_of(allc, "open_hand_win_pp", sign=True),
        "HP above table": ci_of(allc, "open_hand_hp", digits=2, sign=True),
        "vs its type, pp": ci_of(allc, "contrast_pp", sign=True),
        "q": allc["q_value"].map(lambda q: f"{q:.3f}"),
        "flag": np.where(allc["flagged"], "FLAG", ""),
        "shrunk pp": allc["shrunk_open_hand_win_pp"].round(2),
        "rank": [f"{lo}–{hi}" for lo, hi in zip(allc["rank_low"], allc["rank_high"])],
    })
    sec.tables.append(_top_cards(allc, band_pp))
    sec.tables.append(Table("card_strength", "Every card: opening-hand effect and rank",
                            allc[[c for c in allc.columns if not c.startswith(("pick_rate", "keep", "completion",
                                                                               "exposures", "purchases", "discarded",
                                                                               "mean_round", "hp_per", "assoc", "avoid"))]],
                            strength.sort_values(["players", "field", "card"]), collapsed=True))
    market = allc[["players", "field", "card", "name", "type", "exposures", "purchases", "pick_rate",
                   "pick_rate_low", "pick_rate_high"]
                  + [c for c in allc.columns if c.startswith("pick_rate_price_")]
                  + ["discarded_unbought_per_game", "keep_rate", "keep_rate_low", "keep_rate_high",
                     "completion_rate", "completion_rate_low", "completion_rate_high",
                     "mean_round_acquired", "mean_round_completed"]
                  + [c for c in allc.columns if c.startswith("avoid")]]
    mshown = market[["players", "field", "card", "name", "exposures"]].assign(**{
        "pick rate %": ci_of(market, "pick_rate", scale=100),
        **{f"at price {c.rsplit('_', 1)[1]} %": (100 * market[c]).round(1)
           for c in market.columns if c.startswith("pick_rate_price_")},
        "discarded unbought per game": market["discarded_unbought_per_game"].round(3),
        "keep given dealt %": ci_of(market, "keep_rate", scale=100),
        "completed given acquired %": ci_of(market, "completion_rate", scale=100),
        "round acquired": market["mean_round_acquired"].round(2),
        "round completed": market["mean_round_completed"].round(2),
    })
    sec.tables.append(Table("card_market", "Market: pick rate per exposure, keep and completion",
                            market, mshown,
                            note="An exposure is one Phase 1 with the card in a Card Area slot, at "
                                 "that slot's effective price; a card still displayed at the end is "
                                 "unsold, not discarded. Round acquired: 0 = kept at setup. The CSV "
                                 "holds each card's keep and pick rates over its type's (the middle "
                                 "of the other cards of its type, `avoid_*`); avoided: either shown "
                                 f"under {cs.AVOIDED_RATIO:g}, simultaneously over the cards.",
                            collapsed=True))
    eff = allc[["players", "field", "card", "name", "type", "hp_per_placement", "hp_per_atp_value",
                "assoc_win_pp", "assoc_win_pp_low", "assoc_win_pp_high"]]
    eshown = eff[["players", "field", "card", "name", "type"]].assign(type=eff["type"].map(type_label), **{
        "HP per placement": eff["hp_per_placement"].round(3),
        "HP per ATP value": eff["hp_per_atp_value"].round(3),
        "association, win pp (not an effect)": ci_of(eff, "assoc_win_pp", sign=True),
    })
    sec.tables.append(Table("card_efficiency", "Efficiency and association", eff, eshown,
                            note="ATP value by the printed convention: 1 placement = 3 ATP; mRNA, "
                                 "Lipid, ATP = 1; Protein = 2; Carbohydrate = 4. Association: the "
                                 "difference in win share between players who completed the card "
                                 "and the others of the game; good players complete more cards, so "
                                 "it is not what the card is worth.",
                            collapsed=True))
    types = pd.concat([segment_types(run, seg, type_band) for seg in run.segments], ignore_index=True)
    tshown = types[["players", "field", "type", "cards"]].assign(type=types["type"].map(type_label), **{
        "type mean − all-card mean, pp": ci_of(types, "gap_pp", sign=True),
        "simultaneous over types": [f"{lo:+.1f} to {hi:+.1f}" for lo, hi in
                                    zip(types["gap_pp_sim_low"], types["gap_pp_sim_high"])],
        "verdict": types["verdict"]})
    settled = (types["verdict"] == IN_BAND).to_numpy()
    if len(run.segments) > 1:  # a row per type, a column per player count: 7 rows, not 28
        sec.tables.append(Table("card_types", "Card types against the all-card mean, at each player count",
                                types, _types_by_count(types), rest=tshown, rest_title="every type at "
                                "every player count, with both intervals",
                                note=f"Band ±{type_band:g} pp. A cell: the type's mean opening-hand "
                                     "effect minus the all-card mean, its interval simultaneous over "
                                     "the types (the verdict's), and the verdict."))
    else:
        sec.tables.append(Table("card_types", "Card types against the all-card mean: out of band or undecided",
                                types, tshown[~settled], rest=tshown[settled],
                                rest_title="the types in band",
                                note=f"Band ±{type_band:g} pp; the verdict uses the interval "
                                     f"simultaneous over the types. {int(settled.sum())} of {len(types)} "
                                     "are in band: folded below on screen."))
    sec.figures.append(Figure("card_type_forest", "Card types against the all-card mean",
                              _type_forest(types, type_band),
                              "Each type's mean opening-hand effect on win share minus the mean over "
                              "all cards: 95% intervals (thick) and simultaneous over the types "
                              "(thin); the band in green."))
    # with several player counts each count's card figures stay on screen (a page each in print);
    # the heat map below prints every card at every count
    several = len(run.segments) > 1
    where = " (on screen; figures/ holds it for print)" if several else ""
    for seg, frame in zip(run.segments, frames):
        sec.figures.append(Figure(f"card_forest_{seg.players}p_f{seg.field}",
                                  f"Opening-hand effect by card, {seg.label}", _forest(frame, seg, band_pp),
                                  "Within-game difference in win share, dealt vs not dealt "
                                  f"(95% intervals), by type; the band around 0 in green{where}.",
                                  printed=not several))
        sec.figures.append(Figure(f"card_funnel_{seg.players}p_f{seg.field}",
                                  f"Funnel plot, {seg.label}", _funnel(frame, seg),
                                  "Within-type contrast against games dealt, with 95% and 99.8% "
                                  f"control limits: cards outside the funnel stand out from chance{where}.",
                                  printed=not several))
    if len({s.players for s in run.segments}) > 1:
        sec.figures.append(Figure("card_heatmap", "Opening-hand effect by card and player count",
                                  _heatmap(allc), "Win share, percentage points."))
    return sec


def _forest(frame: pd.DataFrame, seg: SegmentInfo, band: float):
    f = frame.sort_values(["type", "open_hand_win_pp"]).reset_index(drop=True)
    fig, ax = figure(figsize=(7.5, max(5.0, 0.16 * len(f) + 1)))
    y = np.arange(len(f))
    for t, part in f.groupby("type", sort=False):
        ax.errorbar(part["open_hand_win_pp"], part.index,
                    xerr=[part["open_hand_win_pp"] - part["open_hand_win_pp_low"],
                          part["open_hand_win_pp_high"] - part["open_hand_win_pp"]],
                    fmt="o", ms=3, color=TYPE_COLOURS.get(t, "#555555"), label=type_label(t), capsize=2)
    ax.axvline(0, color="black", lw=0.8)
    ax.axvspan(-band, band, color="#228833", alpha=0.15, label=f"band ±{band:g} pp")
    ax.set_yticks(y, f["name"], fontsize=7)
    ax.set_xlabel("opening-hand effect on win share (pp)")
    ax.set_title(f"Opening-hand effect by card, {seg.label}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def _type_forest(types: pd.DataFrame, band: float):
    segs = list(dict.fromkeys(zip(types["players"], types["field"])))
    names = list(dict.fromkeys(types["type"]))
    fig, ax = figure(figsize=(7.5, 0.45 * len(names) * max(1, len(segs)) ** 0.5 + 1.6))
    step = 0.7 / max(1, len(segs))
    markers = "osD^v"
    for j, (p, field) in enumerate(segs):
        part = types[(types["players"] == p) & (types["field"] == field)].set_index("type").reindex(names)
        y = np.arange(len(names)) - 0.35 + step * (j + 0.5)
        ax.errorbar(part["gap_pp"], y, xerr=[part["gap_pp"] - part["gap_pp_sim_low"],
                                             part["gap_pp_sim_high"] - part["gap_pp"]],
                    fmt="none", ecolor="#888888", elinewidth=0.8, capsize=0)
        ax.errorbar(part["gap_pp"], y, xerr=[part["gap_pp"] - part["gap_pp_low"],
                                             part["gap_pp_high"] - part["gap_pp"]],
                    fmt=markers[j % len(markers)], ms=4, color="black", elinewidth=2, capsize=0,
                    label=f"{p}p · {field}" if len(segs) > 1 else None)
    ax.axvline(0, color="black", lw=0.8)
    ax.axvspan(-band, band, color="#228833", alpha=0.15)
    ax.set_yticks(range(len(names)), [type_label(t) for t in names])
    for tick, t in zip(ax.get_yticklabels(), names):
        tick.set_color(TYPE_COLOURS.get(t, "#222222"))
    ax.invert_yaxis()
    ax.set_xlabel("type mean minus all-card mean, win share (pp)")
    ax.set_title("Card types against the all-card mean")
    if len(segs) > 1:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def _funnel(frame: pd.DataFrame, seg: SegmentInfo):
    f = frame[np.isfinite(frame["contrast_pp"])]
    flagged = f[f["flagged"]]
    # the flagged cards' names in a column right of the axes (at their points, the names of
    # cards dealt about equally often overlap), as tall as they need; the legend below
    height = max(4.2, 1.7 + label_column_height(len(flagged)))
    fig, ax = figure(figsize=(7.5, height))
    fig.subplots_adjust(left=0.8 / 7.5, right=1 - 1.7 / 7.5, bottom=1.15 / height, top=1 - 0.45 / height)
    n = f["games_dealt"].to_numpy(float)
    sigma = float(np.median(f["contrast_pp_se"] * np.sqrt(n)))
    xs = np.linspace(max(1.0, n.min() * 0.8), n.max() * 1.1, 200)
    for z, ls in ((1.96, "--"), (3.09, ":")):
        ax.plot(xs, z * sigma / np.sqrt(xs), color="black", ls=ls, lw=0.8)
        ax.plot(xs, -z * sigma / np.sqrt(xs), color="black", ls=ls, lw=0.8)
    for t, part in f.groupby("type"):
        ax.scatter(part["games_dealt"], part["contrast_pp"], s=16, color=TYPE_COLOURS.get(t, "#555555"),
                   label=type_label(t))
    ax.set_xlabel("games dealt")
    ax.set_ylabel("effect minus its type's reference (pp)")
    ax.set_title(f"Funnel plot, {seg.label}")
    name_points(ax, flagged["games_dealt"], flagged["contrast_pp"], flagged["name"])
    pos = ax.get_position()
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", bbox_to_anchor=((pos.x0 + pos.x1) / 2, 0.0),
               ncols=4, fontsize=7, frameon=False)
    return fig


def _heatmap(allc: pd.DataFrame):
    pivot = allc.pivot_table(index="name", columns="players", values="open_hand_win_pp", sort=False)
    fig, ax = figure(figsize=(6.0, max(5.0, 0.2 * len(pivot) + 1)))
    lim = float(np.nanmax(np.abs(pivot.to_numpy()))) or 1.0
    im = ax.imshow(pivot.to_numpy(), aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim,
                   interpolation="nearest")
    ax.set_yticks(range(len(pivot)), pivot.index, fontsize=7)
    ax.set_xticks(range(pivot.shape[1]), [f"{c}p" for c in pivot.columns])
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="opening-hand effect, win pp")
    ax.set_title("Opening-hand effect by card and player count")
    return fig
