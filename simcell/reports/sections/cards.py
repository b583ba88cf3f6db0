"""The card section: for each card and player count, the opening-hand effect (headline), the
within-type contrast with flags, shrinkage and rank intervals, market figures, efficiency, and
the association of completing it with winning (labelled as association)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcell.vocabulary import COMPLETED_TYPES
from simcell.reports import cards as cs
from simcell.reports.data import RunData, SegmentInfo
from simcell.reports.estimates import ci_of
from simcell.reports.intervals import jackknife_ratio
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import TYPE_COLOURS, figure, pretty

COLUMNS = ["policy", "win_share", "final_hp", "dealt_mask", "kept_mask", "bought_mask",
           "completed_mask"] + [f"completed_{t}" for t in COMPLETED_TYPES]


def card_table(run: RunData) -> pd.DataFrame:
    path = run.root / "cards.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the run directory predates card analytics")
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _ratios(num: np.ndarray, den: np.ndarray, card_ids) -> list:
    """Per card: jackknife ratio of two blocks x 64 count arrays."""
    return [jackknife_ratio(num[:, j], den[:, j]) for j in card_ids]


@dataclass
class _CardSums:
    """What the card figures need from the records, summed per block (blocks x 64 card ids),
    plus the first games' rows for the association."""

    opening: np.ndarray  # blocks x 64 x (win share, final HP): dealt player minus the others
    dealt: np.ndarray  # games that dealt the card
    kept: np.ndarray  # ... in which its player kept it
    acquired: np.ndarray  # players who kept or bought it
    completed: np.ndarray  # ... and completed it
    head: pd.DataFrame  # the first cs.ASSOCIATION_GAMES games' rows


def _card_sums(run: RunData, seg: SegmentInfo) -> _CardSums:
    """One pass over the segment's records, part by part (memory does not grow with the run)."""
    p, k = seg.players, seg.blocks
    opening, dealt_n = np.zeros((k, 64, 2)), np.zeros((k, 64))
    kept_n, acquired_n, completed_n = np.zeros((k, 64)), np.zeros((k, 64)), np.zeros((k, 64))
    head, head_rows = [], 0
    for df in run.record_parts("players", seg, COLUMNS):
        starts = cs.block_starts(np.repeat(run.block_of_games(seg, df["game"].to_numpy()[::p]), p), k)
        dealt = df["dealt_mask"].to_numpy()
        values = np.stack([df["win_share"].to_numpy(np.float64), df["final_hp"].to_numpy(np.float64)], axis=1)
        sums, games = cs.opening_hand_sums(dealt, values, p, starts)
        opening += sums
        dealt_n += games
        acquired = df["kept_mask"].to_numpy() | df["bought_mask"].to_numpy()
        kept_n += cs.bits_by_block(df["kept_mask"].to_numpy() & dealt, starts)[0]
        acquired_n += cs.bits_by_block(acquired, starts)[0]
        completed_n += cs.bits_by_block(df["completed_mask"].to_numpy() & acquired, starts)[0]
        if head_rows < cs.ASSOCIATION_GAMES * p:
            head.append(df)
            head_rows += len(df)
    head_df = pd.concat(head, ignore_index=True) if head else pd.DataFrame(columns=["game", "seat"] + COLUMNS)
    return _CardSums(opening, dealt_n, kept_n, acquired_n, completed_n,
                     head_df.iloc[: cs.ASSOCIATION_GAMES * p])


def _pick_rate_intervals(run: RunData, seg: SegmentInfo, card_ids) -> list:
    """Per card: purchases per exposure over all prices, jackknifed over blocks."""
    k = seg.blocks

    def per_block(df):
        t = df.groupby(["block", "card"], observed=True)["count"].sum().unstack(fill_value=0)
        return t.reindex(index=range(k), columns=card_ids, fill_value=0).to_numpy(np.float64)

    ex = per_block(run.seg_blocks("offered", seg))
    bo = per_block(run.seg_blocks("bought", seg))
    return [jackknife_ratio(bo[:, j], ex[:, j]) for j in range(len(card_ids))]


def _mean_round(agg: pd.DataFrame) -> pd.Series:
    w = agg.assign(w=agg["round"] * agg["count"]).groupby("card")[["w", "count"]].sum()
    return w["w"] / w["count"]


def segment_cards(run: RunData, seg: SegmentInfo, band_pp: float) -> pd.DataFrame:
    """One row per card of a segment with every card figure (numbers, for CSV)."""
    key = (seg.players, seg.field, band_pp)
    cache = run.cache.setdefault("cards", {})
    if key in cache:
        return cache[key]
    cards = card_table(run)
    ids = cards["id"].to_numpy()
    types = cards["type"].to_numpy()
    p = seg.players
    sums = _card_sums(run, seg)
    win = cs.card_effects(sums.opening[..., 0], sums.dealt, ids, types)
    hp = cs.card_effects(sums.opening[..., 1], sums.dealt, ids, types)
    pp = 100.0
    sc = cs.screen(win.contrast * pp, win.contrast_se * pp, win.df, band_pp)
    shrunk = cs.shrink(win.effect * pp, win.effect_se * pp, types)
    rlo, rhi = cs.rank_intervals(win.contrast, win.contrast_se, run.seed + seg.players)
    tq = _t(win.df)
    keep = _ratios(sums.kept, sums.dealt, ids)
    done = _ratios(sums.completed, sums.acquired, ids)
    head = sums.head
    cards_done = head[[f"completed_{t}" for t in COMPLETED_TYPES]].sum(axis=1)
    beta, bse = cs.association(head.assign(cards_completed=cards_done), p, ids)
    out = pd.DataFrame({
        "players": p, "field": seg.field_name, "card": ids, "name": cards["name"], "type": types,
        "games_dealt": win.games,
        "open_hand_win_pp": win.effect * pp, "open_hand_win_pp_low": (win.effect - tq * win.effect_se) * pp,
        "open_hand_win_pp_high": (win.effect + tq * win.effect_se) * pp, "open_hand_win_pp_se": win.effect_se * pp,
        "open_hand_hp": hp.effect, "open_hand_hp_low": hp.effect - tq * hp.effect_se,
        "open_hand_hp_high": hp.effect + tq * hp.effect_se,
        "contrast_pp": win.contrast * pp, "contrast_pp_low": (win.contrast - tq * win.contrast_se) * pp,
        "contrast_pp_high": (win.contrast + tq * win.contrast_se) * pp, "contrast_pp_se": win.contrast_se * pp,
        "contrast_sim_low": sc.sim_low, "contrast_sim_high": sc.sim_high,
        "p_value": sc.p_value, "q_value": sc.q_value, "flagged": sc.flagged,
        "shrunk_open_hand_win_pp": shrunk, "rank_low": rlo, "rank_high": rhi,
        "keep_rate": [e.value for e in keep], "keep_rate_low": [e.low for e in keep],
        "keep_rate_high": [e.high for e in keep],
        "completion_rate": [e.value for e in done], "completion_rate_low": [e.low for e in done],
        "completion_rate_high": [e.high for e in done],
        "assoc_win_pp": beta * pp, "assoc_win_pp_low": (beta - 1.96 * bse) * pp,
        "assoc_win_pp_high": (beta + 1.96 * bse) * pp,
        "hp_per_placement": cards["hp_per_placement"].to_numpy(dtype=float),
        "hp_per_atp_value": [r["hp"] / cs.atp_value(r) if cs.atp_value(r) > 0 else np.nan
                             for _, r in cards.iterrows()],
    })
    m = cs.market(run.seg_blocks("offered", seg), run.seg_blocks("bought", seg),
                  run.seg_blocks("discarded", seg))
    totals = m.groupby("card")[["exposures", "purchases"]].sum()
    out["exposures"] = out["card"].map(totals["exposures"]).fillna(0).astype(np.int64)
    out["purchases"] = out["card"].map(totals["purchases"]).fillna(0).astype(np.int64)
    out["pick_rate"] = out["purchases"] / out["exposures"].where(out["exposures"] > 0)
    pick = _pick_rate_intervals(run, seg, ids)
    out["pick_rate_low"] = [e.low for e in pick]
    out["pick_rate_high"] = [e.high for e in pick]
    for price in sorted(m["price"].unique()):
        part = m[m["price"] == price].set_index("card")
        out[f"pick_rate_price_{price}"] = out["card"].map(part["pick_rate"])
    disc = m.groupby("card")["discarded_unbought"].first()
    out["discarded_unbought_per_game"] = out["card"].map(disc).fillna(0) / seg.games
    out["mean_round_acquired"] = out["card"].map(_mean_round(run.seg_blocks("acquired", seg)))
    out["mean_round_completed"] = out["card"].map(_mean_round(run.seg_blocks("completed", seg)))
    cache[key] = out
    return out


def _t(df: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.975, df))


def build(run: RunData, band_pp: float) -> Section:
    sec = Section("cards", "Cards")
    sec.text += [
        "**Opening-hand effect** (the headline): being dealt a card in the opening three is random, "
        "so the difference between the player dealt it and the other players of the same game, in "
        "win share (percentage points) and in HP above the table, is what the card does for a "
        "player. One value per game that dealt the card; 95% intervals, jackknife over blocks.",
        "**Within-type contrast**: the card's effect minus the mean effect of the other cards of "
        "its type. Types differ by design; this is the figure screened for flags. A card is "
        f"**flagged** only if its Benjamini–Hochberg q < 0.05 over the cards and its simultaneous "
        f"(Šidák) interval lies wholly outside the band ±{band_pp:g} pp. Shrunken: the effect pulled "
        "toward its type's mean by empirical Bayes. Rank: a 95% interval of the card's rank by "
        "contrast (1 = strongest).",
        "**Association, not an effect**: the within-game difference in win share between players "
        "who completed the card and the others, adjusted for cards completed, seat and policy (OLS "
        "with game fixed effects on the first 50,000 games, cluster-robust by game). "
        "Good players complete more cards, so this is not what the card is worth; it is shown for "
        "comparison only.",
    ]
    frames = [segment_cards(run, seg, band_pp) for seg in run.segments]
    allc = pd.concat(frames, ignore_index=True)
    strength = allc[["players", "field", "card", "name", "type", "games_dealt"]].assign(**{
        "opening-hand effect, win pp": ci_of(allc, "open_hand_win_pp", sign=True),
        "HP above table": ci_of(allc, "open_hand_hp", digits=2, sign=True),
        "vs its type, pp": ci_of(allc, "contrast_pp", sign=True),
        "q": allc["q_value"].map(lambda q: f"{q:.3f}"),
        "flag": np.where(allc["flagged"], "FLAG", ""),
        "shrunk pp": allc["shrunk_open_hand_win_pp"].round(2),
        "rank": [f"{lo}–{hi}" for lo, hi in zip(allc["rank_low"], allc["rank_high"])],
    })
    sec.tables.append(Table("card_strength", "Card strength (opening-hand effect)",
                            allc[[c for c in allc.columns if not c.startswith(("pick_rate", "keep", "completion",
                                                                               "exposures", "purchases", "discarded",
                                                                               "mean_round", "hp_per", "assoc"))]],
                            strength.sort_values(["players", "field", "card"])))
    market = allc[["players", "field", "card", "name", "type", "exposures", "purchases", "pick_rate",
                   "pick_rate_low", "pick_rate_high"]
                  + [c for c in allc.columns if c.startswith("pick_rate_price_")]
                  + ["discarded_unbought_per_game", "keep_rate", "keep_rate_low", "keep_rate_high",
                     "completion_rate", "completion_rate_low", "completion_rate_high",
                     "mean_round_acquired", "mean_round_completed"]]
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
                                 "unsold, not discarded. Round acquired: 0 = kept at setup."))
    eff = allc[["players", "field", "card", "name", "type", "hp_per_placement", "hp_per_atp_value",
                "assoc_win_pp", "assoc_win_pp_low", "assoc_win_pp_high"]]
    eshown = eff[["players", "field", "card", "name", "type"]].assign(**{
        "HP per placement": eff["hp_per_placement"].round(3),
        "HP per ATP value": eff["hp_per_atp_value"].round(3),
        "association, win pp (not an effect)": ci_of(eff, "assoc_win_pp", sign=True),
    })
    sec.tables.append(Table("card_efficiency", "Efficiency and association", eff, eshown,
                            note="ATP value by the printed convention: 1 placement = 3 ATP; mRNA, "
                                 "Lipid, ATP = 1; Protein = 2; Carbohydrate = 4."))
    types = (allc.groupby(["players", "field", "type"], sort=False)
             .agg(cards=("card", "size"), open_hand_win_pp=("open_hand_win_pp", "mean"),
                  open_hand_hp=("open_hand_hp", "mean"), flagged=("flagged", "sum"),
                  pick_rate=("pick_rate", "mean"), completion_rate=("completion_rate", "mean"))
             .reset_index())
    sec.tables.append(Table("card_types", "By card type", types, types.round(3)))
    flagged = allc[allc["flagged"]]
    sec.text.append(f"{len(flagged)} card(s) flagged" + (": " + ", ".join(
        f"{n} ({p}p, {v:+.1f} pp vs its type)" for n, p, v in
        zip(flagged["name"], flagged["players"], flagged["contrast_pp"])) if len(flagged) else "."))
    for seg, frame in zip(run.segments, frames):
        sec.figures.append(Figure(f"card_forest_{seg.players}p_f{seg.field}",
                                  f"Opening-hand effect by card, {seg.label}", _forest(frame, seg, band_pp),
                                  "Within-game difference in win share, dealt vs not dealt "
                                  "(95% intervals), by type; the band around 0 in green."))
        sec.figures.append(Figure(f"card_funnel_{seg.players}p_f{seg.field}",
                                  f"Funnel plot, {seg.label}", _funnel(frame, seg),
                                  "Within-type contrast against games dealt, with 95% and 99.8% "
                                  "control limits: cards outside the funnel stand out from chance."))
    if len({s.players for s in run.segments}) > 1:
        sec.figures.append(Figure("card_heatmap", "Opening-hand effect by card and player count",
                                  _heatmap(allc), "Win share, percentage points."))
    return sec


def _forest(frame: pd.DataFrame, seg: SegmentInfo, band: float):
    f = frame.sort_values(["type", "open_hand_win_pp"]).reset_index(drop=True)
    fig, ax = figure(figsize=(7.5, max(5.0, 0.2 * len(f) + 1)))
    y = np.arange(len(f))
    for t, part in f.groupby("type", sort=False):
        ax.errorbar(part["open_hand_win_pp"], part.index,
                    xerr=[part["open_hand_win_pp"] - part["open_hand_win_pp_low"],
                          part["open_hand_win_pp_high"] - part["open_hand_win_pp"]],
                    fmt="o", ms=3, color=TYPE_COLOURS.get(t, "#555555"), label=pretty(t), capsize=2)
    ax.axvline(0, color="black", lw=0.8)
    ax.axvspan(-band, band, color="#228833", alpha=0.15, label=f"band ±{band:g} pp")
    ax.set_yticks(y, f["name"], fontsize=7)
    ax.set_xlabel("opening-hand effect on win share (pp)")
    ax.set_title(f"Opening-hand effect by card, {seg.label}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def _funnel(frame: pd.DataFrame, seg: SegmentInfo):
    f = frame[np.isfinite(frame["contrast_pp"])]
    fig, ax = figure(figsize=(7.0, 4.2))
    n = f["games_dealt"].to_numpy(float)
    sigma = float(np.median(f["contrast_pp_se"] * np.sqrt(n)))
    xs = np.linspace(max(1.0, n.min() * 0.8), n.max() * 1.1, 200)
    for z, ls in ((1.96, "--"), (3.09, ":")):
        ax.plot(xs, z * sigma / np.sqrt(xs), color="black", ls=ls, lw=0.8)
        ax.plot(xs, -z * sigma / np.sqrt(xs), color="black", ls=ls, lw=0.8)
    for t, part in f.groupby("type"):
        ax.scatter(part["games_dealt"], part["contrast_pp"], s=16, color=TYPE_COLOURS.get(t, "#555555"),
                   label=pretty(t))
    for _, r in f[f["flagged"]].iterrows():
        ax.annotate(r["name"], (r["games_dealt"], r["contrast_pp"]), fontsize=7)
    ax.set_xlabel("games dealt")
    ax.set_ylabel("effect minus its type's mean (pp)")
    ax.set_title(f"Funnel plot, {seg.label}")
    ax.legend(fontsize=7)
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
