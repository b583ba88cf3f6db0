"""The card table of a run: for each card and player count, the opening-hand effect, its
contrast within its type with flags, shrinkage and rank intervals, market figures and efficiency,
each card type's gap against the average card, and each card's verdict against the band; summed
in one pass over a segment's records. The report's card section, its verdicts across skill, the
designer tools and the studio read their card figures here."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcell.vocabulary import ADDITIONAL_RESOURCE, CARD_TYPES, CARDS_FILE, COMPLETED_TYPES
from simcell.reports import cards as cs
from simcell.reports.data import RunData, SegmentInfo
from simcell.reports.intervals import (
    IN_BAND,
    INCONCLUSIVE,
    LEVEL,
    OUT_OF_BAND,
    Estimate,
    jackknife_ratio,
    sidak,
    verdict,
)


COLUMNS = ["policy", "win_share", "final_hp", "dealt_mask", "kept_mask", "bought_mask",
           "completed_mask"] + [f"completed_{t}" for t in COMPLETED_TYPES]


def card_table(run: RunData) -> pd.DataFrame:
    path = run.root / CARDS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the run directory predates card analytics")
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _ratio_of(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b, NaN where b is 0 or NaN (a card never dealt), without numpy's warning on a
    user's terminal."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1.0), np.nan)


def _ratios(num: np.ndarray, den: np.ndarray, card_ids) -> list:
    """Per card: jackknife ratio of two blocks x 64 count arrays."""
    return [jackknife_ratio(num[:, j], den[:, j]) for j in card_ids]


@dataclass
class CardSums:
    """What the card figures need from the records, summed per block (blocks x 64 card ids),
    plus the first games' rows for the association."""

    opening: np.ndarray  # blocks x 64 x (win share, final HP): dealt player minus the others
    dealt: np.ndarray  # games that dealt the card
    kept: np.ndarray  # ... in which its player kept it
    acquired: np.ndarray  # players who kept or bought it
    completed: np.ndarray  # ... and completed it
    head: pd.DataFrame  # the first cs.ASSOCIATION_GAMES games' rows
    # for the seat-adjusted effects (cards.seat_adjusted): blocks x 64 x P, each card's sum over
    # the games that dealt it of (dealt player at seat s) − (others at seat s)/(P − 1); blocks x
    # P x (win share, final HP) summed by seat; games per block
    seat_open: np.ndarray | None = None
    seat_values: np.ndarray | None = None
    games: np.ndarray | None = None

    def numerators(self, column: int) -> cs.Numerators:
        """The opening-hand numerators of a value (0 win share, 1 final HP), seat-adjusted."""
        if self.seat_open is None:
            return cs.Numerators.plain(self.opening[..., column])
        return cs.seat_adjusted(self.opening[..., column], self.seat_open,
                                self.seat_values[..., column], self.games)


def card_sums(run: RunData, seg: SegmentInfo) -> CardSums:
    """One pass over the segment's records, part by part (memory does not grow with the run);
    kept for the other card figures of the same segment."""
    cache = run.cache.setdefault("card_sums", {})
    if (seg.players, seg.field) not in cache:
        cache[(seg.players, seg.field)] = _sum_cards(run, seg)
    return cache[(seg.players, seg.field)]


def _sum_cards(run: RunData, seg: SegmentInfo) -> CardSums:
    p, k = seg.players, seg.blocks
    opening, dealt_n = np.zeros((k, 64, 2)), np.zeros((k, 64))
    kept_n, acquired_n, completed_n = np.zeros((k, 64)), np.zeros((k, 64)), np.zeros((k, 64))
    seat_open, seat_values, games = np.zeros((k, 64, p)), np.zeros((k, p, 2)), np.zeros(k)
    head, head_rows = [], 0
    for df in run.record_parts("players", seg, COLUMNS):
        starts = cs.block_starts(np.repeat(run.block_of_games(seg, df["game"].to_numpy()[::p]), p), k)
        part = card_part_sums(df, p, starts)
        opening += part[0]
        dealt_n += part[1]
        kept_n += part[2]
        acquired_n += part[3]
        completed_n += part[4]
        by_seat = seat_part_sums(df, p, starts)
        seat_open += by_seat[0]
        seat_values += by_seat[1]
        games += by_seat[2]
        if head_rows < cs.ASSOCIATION_GAMES * p:
            head.append(df)
            head_rows += len(df)
    head_df = pd.concat(head, ignore_index=True) if head else pd.DataFrame(columns=["game", "seat"] + COLUMNS)
    return CardSums(opening, dealt_n, kept_n, acquired_n, completed_n,
                    head_df.iloc[: cs.ASSOCIATION_GAMES * p], seat_open, seat_values, games)


def seat_part_sums(df: pd.DataFrame, p: int, starts: np.ndarray) -> tuple[np.ndarray, ...]:
    """One part of player records, per block: each card's sum over the games that dealt it of
    (dealt player at seat s) − (others at seat s)/(P − 1) (blocks x 64 x P), the win share and
    final HP summed by seat (blocks x P x 2), and the games."""
    seat = df["seat"].to_numpy()
    onehot = (seat[:, None] == np.arange(p)[None, :]).astype(np.float64)
    seat_open, _ = cs.opening_hand_sums(df["dealt_mask"].to_numpy(), onehot, p, starts)
    values = np.stack([df["win_share"].to_numpy(np.float64), df["final_hp"].to_numpy(np.float64)], axis=1)
    k = len(starts) - 1
    by_seat, games = np.zeros((k, p, 2)), np.zeros(k)
    for b in range(k):
        rows = slice(starts[b], starts[b + 1])
        by_seat[b] = onehot[rows].T @ values[rows]
        games[b] = (starts[b + 1] - starts[b]) / p
    return seat_open, by_seat, games


def card_part_sums(df: pd.DataFrame, p: int, starts: np.ndarray) -> tuple[np.ndarray, ...]:
    """One part of player records (rows game-major, seat-minor; block b is rows starts[b] ..
    starts[b + 1] - 1), per block and card id: the opening-hand sums (blocks x 64 x (win share,
    final HP)), the games that dealt the card, those whose player kept it, the players who
    acquired it and those who also completed it."""
    dealt = df["dealt_mask"].to_numpy()
    values = np.stack([df["win_share"].to_numpy(np.float64), df["final_hp"].to_numpy(np.float64)], axis=1)
    opening, games = cs.opening_hand_sums(dealt, values, p, starts)
    acquired = df["kept_mask"].to_numpy() | df["bought_mask"].to_numpy()
    return (opening, games, cs.bits_by_block(df["kept_mask"].to_numpy() & dealt, starts)[0],
            cs.bits_by_block(acquired, starts)[0],
            cs.bits_by_block(df["completed_mask"].to_numpy() & acquired, starts)[0])


def _offers_by_block(run: RunData, seg: SegmentInfo, card_ids) -> tuple[np.ndarray, np.ndarray]:
    """Per block and card (blocks x cards): exposures and purchases over all prices."""
    k = seg.blocks

    def per_block(df):
        t = df.groupby(["block", "card"], observed=True)["count"].sum().unstack(fill_value=0)
        return t.reindex(index=range(k), columns=card_ids, fill_value=0).to_numpy(np.float64)

    return per_block(run.seg_blocks("offered", seg)), per_block(run.seg_blocks("bought", seg))


def _pick_rate_intervals(ex: np.ndarray, bo: np.ndarray) -> list:
    """Per card: purchases per exposure over all prices, jackknifed over blocks."""
    return [jackknife_ratio(bo[:, j], ex[:, j]) for j in range(ex.shape[1])]


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
    sums = card_sums(run, seg)
    win = cs.card_effects(sums.numerators(0), sums.dealt, ids, types, band_pp)
    hp = cs.card_effects(sums.numerators(1), sums.dealt, ids, types, band_pp)  # its effect alone is read
    plain = cs.card_effects(sums.opening[..., 0], sums.dealt, ids, types, band_pp)
    pp = 100.0
    sc = cs.screen(win.contrast * pp, win.contrast_se * pp, win.df, band_pp)
    shrunk = cs.shrink(win.effect * pp, win.effect_se * pp, types)
    rlo, rhi = cs.rank_intervals(win.contrast, win.contrast_se, run.seed + seg.players)
    tq = _t(win.df)
    keep = _ratios(sums.kept, sums.dealt, ids)
    # an Additional Resource card is never completed (its gain comes when it is taken): n/a, not 0
    done = [Estimate(np.nan, np.nan, 0) if t == CARD_TYPES[ADDITIONAL_RESOURCE] else e
            for e, t in zip(_ratios(sums.completed, sums.acquired, ids), types)]
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
        # the same without the seat adjustment, and how much variance the adjustment removed
        "contrast_pp_plain": plain.contrast * pp, "contrast_pp_plain_se": plain.contrast_se * pp,
        "contrast_variance_ratio": _ratio_of(plain.contrast_se, win.contrast_se) ** 2,
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
    ex, bo = _offers_by_block(run, seg, ids)
    pick = _pick_rate_intervals(ex, bo)
    out["pick_rate_low"] = [e.low for e in pick]
    out["pick_rate_high"] = [e.high for e in pick]
    # avoided: kept when dealt, or bought when offered, at under half its type's rate
    kr = cs.rate_ratios(sums.kept[:, ids], sums.dealt[:, ids], types)
    pr = cs.rate_ratios(bo, ex, types)
    av = cs.avoided(kr, pr)
    out["avoid_keep_type_rate"], out["avoid_keep_ratio"] = kr.type_rate, kr.ratio
    out["avoid_keep_ratio_high"] = av.keep_high
    out["avoid_pick_type_rate"], out["avoid_pick_ratio"] = pr.type_rate, pr.ratio
    out["avoid_pick_ratio_high"] = av.pick_high
    out["avoided"] = av.avoided
    out["avoided_by"] = [", ".join(w for w, f in (("kept", k), ("bought", b)) if f)
                         for k, b in zip(av.by_keep, av.by_pick)]
    for price in sorted(m["price"].unique()):
        part = m[m["price"] == price].set_index("card")
        out[f"pick_rate_price_{price}"] = out["card"].map(part["pick_rate"])
    disc = m.groupby("card")["discarded_unbought"].first()
    out["discarded_unbought_per_game"] = out["card"].map(disc).fillna(0) / seg.games
    out["mean_round_acquired"] = out["card"].map(_mean_round(run.seg_blocks("acquired", seg)))
    out["mean_round_completed"] = out["card"].map(_mean_round(run.seg_blocks("completed", seg)))
    cache[key] = out
    return out


def segment_types(run: RunData, seg: SegmentInfo, band_pp: float) -> pd.DataFrame:
    """One row per card type of a segment (type_table)."""
    cards = card_table(run)
    sums = card_sums(run, seg)
    t = cs.type_effects(sums.numerators(0), sums.dealt, cards["id"].to_numpy(), cards["type"].to_numpy())
    return type_table(t, band_pp).assign(players=seg.players, field=seg.field_name)[
        ["players", "field"] + TYPE_COLUMNS]


TYPE_COLUMNS = ["type", "cards", "gap_pp", "gap_pp_low", "gap_pp_high", "gap_pp_se", "gap_pp_sim_low",
                "gap_pp_sim_high", "verdict"]


def type_table(t: cs.TypeEffects, band_pp: float) -> pd.DataFrame:
    """Each type's mean opening-hand effect on win share minus the all-card mean (pp): a 95%
    interval, one simultaneous over the types (Šidák), and the verdict against the band at the
    simultaneous level (so that a deck whose types are all in line flags none 95% of the time)."""
    level = sidak(LEVEL, len(t.types))
    rows = []
    for name, n, gap, se in zip(t.types, t.cards, t.gap * 100, t.gap_se * 100):
        e = Estimate(float(gap), float(se), t.df)
        s = e.at_level(level)
        rows.append({"type": name, "cards": int(n), "gap_pp": e.value, "gap_pp_low": e.low,
                     "gap_pp_high": e.high, "gap_pp_se": e.se, "gap_pp_sim_low": s.low,
                     "gap_pp_sim_high": s.high, "verdict": verdict(e, band_pp, 1 - level)})
    return pd.DataFrame(rows, columns=TYPE_COLUMNS)


def card_verdict(c: pd.DataFrame, band: float) -> np.ndarray:
    """Per card: out of band (flagged), in band (simultaneous interval inside the band), or
    inconclusive."""
    inside = (c["contrast_sim_low"] >= -band) & (c["contrast_sim_high"] <= band)
    return np.where(c["flagged"], OUT_OF_BAND, np.where(inside, IN_BAND, INCONCLUSIVE))


def _t(df: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.975, df))


def avoided_text(c: pd.Series) -> str:
    """Why a card is named avoided, short enough for the verdict table's cell: "kept 0.0% when
    dealt, its type 14.9%; bought ..." (the rates shown below half its type's; the table's note
    says what the rates are)."""
    parts = []
    if "kept" in c["avoided_by"]:
        parts.append(f"kept {100 * c['keep_rate']:.1f}% when dealt, its type {100 * c['avoid_keep_type_rate']:.1f}%")
    if "bought" in c["avoided_by"]:
        parts.append(f"bought {100 * c['pick_rate']:.1f}% when offered, its type "
                     f"{100 * c['avoid_pick_type_rate']:.1f}%")
    return "; ".join(parts)

