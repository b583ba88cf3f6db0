"""Card analytics (docs/method.md §4): what each card is worth, measured causally.

- Opening-hand effect (the headline): being dealt a card in the opening hand is random, so the
  within-game difference between the player dealt it and the other players of that game, in win
  share and in HP above the table, estimates what the card does for a player. One value per
  game that dealt the card (clustered by game), jackknifed over blocks.
- Within-type contrast: a card's effect minus its type's reference, the biweight location of
  the other cards of its type in the same run (their mean while they lie near one another; a
  card REFERENCE_BANDS bands or more from the rest weighs nothing in it, so one outlier does not
  move its siblings), jackknifed over blocks. Types differ by design, so this is the figure that
  screening, flags and rank intervals use.
- Avoided cards: a card kept from the opening hand, or bought when offered, shown at less than
  AVOIDED_RATIO of its type's rate (the same reference, on log rates).
- Flags: Benjamini–Hochberg q < 0.05 and a Šidák-simultaneous interval (over the cards) wholly
  outside the band; shrinkage toward the type mean (empirical Bayes); rank intervals.
- Market figures from the block aggregates; efficiency from the printed ATP convention; and an
  association (completers vs others, within game), labelled as such.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from simcell.reports.intervals import sidak
from simcell.reports.paired import jackknife_se

# A card's type reference (docs/method.md §4): the biweight location of the other cards of its
# type, at a scale of REFERENCE_BANDS card bands: a card that far or further from the others'
# median weighs nothing in it; cards within about a band of one another weigh (nearly) alike, and
# the reference is then their mean. One weighted-mean step from the median, not iterated to a
# fixed point: where the other cards fall into two groups the median sits between two fixed
# points and a shift of 0.1 pp sends the iteration to either (a reference jumping 3.5 pp), while
# one step is continuous in the effects, so the delete-a-block jackknife holds.
REFERENCE_BANDS = 4.0
DEFAULT_BAND_PP = 1.0  # the shipped card band (simcell/data/report.toml), for callers without one
REFERENCE_STEPS = 1
ATP_VALUE = {"atp": 1.0, "mrna": 1.0, "lipid": 1.0, "carb": 4.0, "protein": 2.0}  # docs/method.md
PLACEMENT_ATP = 3.0


@dataclass
class CardEffects:
    """Per-card estimates (arrays indexed like `cards`) with jackknife standard errors."""

    cards: np.ndarray  # card ids
    games: np.ndarray  # games in which the card was dealt
    effect: np.ndarray  # dealt minus the others of the game
    effect_se: np.ndarray
    contrast: np.ndarray  # effect minus its type's reference (the other cards of its type)
    contrast_se: np.ndarray
    df: int  # jackknife degrees of freedom (blocks - 1)


def mask_bits(masks: np.ndarray) -> np.ndarray:
    """rows x 64 uint8: bit j of each uint64 card mask (card id j), unpacked in one step."""
    m = np.ascontiguousarray(masks, dtype=np.uint64)
    return np.unpackbits(m.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")


def block_starts(row_blocks: np.ndarray, blocks: int) -> np.ndarray:
    """First row of each block (rows sorted by block): bounds for slicing block by block."""
    return np.searchsorted(row_blocks, np.arange(blocks + 1))


def bits_by_block(masks: np.ndarray, starts: np.ndarray,
                  weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Per block and card id: the rows whose mask holds the card (blocks x 64) and, with
    `weights` (rows x m), the sums of their weights (blocks x 64 x m). Block b is rows
    starts[b] .. starts[b + 1] - 1. The set bits are taken pass by pass (every row's lowest,
    then every row's next: card masks are sparse, a few passes), and the weights added in that
    order (np.bincount adds in input order), so the figures do not depend on how rows are
    batched; tests/test_cards.py checks them against a row-by-row loop to the last bit."""
    k = len(starts) - 1
    w = np.zeros((len(masks), 0)) if weights is None else np.asarray(weights, np.float64)
    counts, sums = np.zeros((k, 64)), np.zeros((k, 64, w.shape[1]))
    for b in range(k):
        m = np.asarray(masks[starts[b]:starts[b + 1]], np.uint64)
        rows = np.arange(len(m))
        out_rows, out_cards = [], []
        while True:
            keep = m != 0
            m, rows = m[keep], rows[keep]
            if not len(m):
                break
            low = m & (~m + np.uint64(1))
            out_rows.append(rows)
            out_cards.append(np.log2(low.astype(np.float64)).astype(np.int64))  # exact: 2**c
            m = m ^ low
        if not out_rows:
            continue
        r, c = np.concatenate(out_rows), np.concatenate(out_cards)
        counts[b] = np.bincount(c, minlength=64)
        wb = w[starts[b]:starts[b + 1]][r]
        for j in range(w.shape[1]):
            sums[b, :, j] = np.bincount(c, weights=wb[:, j], minlength=64)
    return counts, (None if weights is None else sums)


def opening_hand_sums(dealt: np.ndarray, values: np.ndarray, players: int,
                      starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per block and card id, for each column of `values` (rows x m, or one column): the sum
    over games that dealt the card of (the dealt player's value minus the mean of the other
    players'), and the number of such games (rows game-major, seat-minor; a card is dealt to at
    most one player of a game). Returns (sums blocks x 64 [x m], games blocks x 64)."""
    v = np.asarray(values, np.float64)
    flat = v.ndim == 1
    v = v.reshape(-1, players, 1) if flat else v.reshape(-1, players, v.shape[-1])
    diff = (v - (v.sum(axis=1, keepdims=True) - v) / (players - 1)).reshape(-1, v.shape[-1])
    games, sums = bits_by_block(dealt, starts, diff)
    return (sums[..., 0] if flat else sums), games


def _effects(n: np.ndarray, d: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return n / d


@dataclass
class Numerators:
    """A per-card numerator summed over the run (64) and with each block left out (blocks x 64):
    plain sums (`plain`), or sums less a control variate (`seat_adjusted`), whose left-out
    totals are not the total less one block."""

    total: np.ndarray
    left: np.ndarray

    @classmethod
    def plain(cls, num: np.ndarray) -> Numerators:
        num = np.asarray(num, np.float64)
        total = num.sum(axis=0)
        return cls(total, total[None, :] - num)


def seat_adjusted(num: np.ndarray, seat_open: np.ndarray, seat_values: np.ndarray,
                  seat_games: np.ndarray) -> Numerators:
    """The opening-hand numerators less the part the seats explain, cross-fitted (docs/method.md
    §4): each game's (dealt player − the others) less (f(dealt player's seat) − the others'
    mean f), f(s) the mean value at seat s in the *other* half of the blocks (even and odd
    blocks: other games, other seeds). The dealt player's seat is uniform whatever the card, so
    the subtracted part has mean zero for any f fixed apart from the games it adjusts: the
    estimate stays unbiased and loses the variance of the seats. Inputs per block:
    `num` (k x 64) the plain sums, `seat_open` (k x 64 x P) each card's sum over the games that
    dealt it of (dealt player at seat s) − (others at seat s)/(P − 1), `seat_values` (k x P) the
    value summed by seat, `seat_games` (k) the games. Left-out totals refit f without the block."""
    num = np.asarray(num, np.float64)
    k = num.shape[0]
    fold = np.arange(k) % 2
    sv, sg = np.asarray(seat_values, np.float64), np.asarray(seat_games, np.float64)
    if k < 4 or min(sg[fold == 0].sum(), sg[fold == 1].sum()) <= 0:
        return Numerators.plain(num)  # too few blocks for two folds: nothing to fit f on
    sum_v = np.stack([sv[fold == f].sum(axis=0) for f in (0, 1)])  # 2 x P
    sum_g = np.array([sg[fold == f].sum() for f in (0, 1)])
    f = sum_v / sum_g[:, None]  # f[F]: seat means of fold F
    open_by_fold = np.stack([seat_open[fold == F].sum(axis=0) for F in (0, 1)])  # 2 x 64 x P
    # a block of fold F is adjusted by the other fold's f
    adjusted = num - np.einsum("kcs,ks->kc", seat_open, f[1 - fold])
    total = adjusted.sum(axis=0)
    # leaving block b out also refits its own fold's f, which adjusts the other fold
    f_left = (sum_v[fold] - sv) / np.maximum(sum_g[fold] - sg, 1e-300)[:, None]  # k x P
    other = open_by_fold[1 - fold]  # k x 64 x P: the fold that f_fold(b) adjusts
    shift = np.einsum("kcs,ks->kc", other, f_left - f[fold])
    left = total[None, :] - adjusted - shift
    return Numerators(total, left)


def _by_block(num: np.ndarray | Numerators, den: np.ndarray, card_ids: np.ndarray):
    """Per-card effects of the whole run and with each block left out (k x cards), from the
    blocks that dealt any card."""
    n = num if isinstance(num, Numerators) else Numerators.plain(num)
    den = np.asarray(den, np.float64)
    used = den[:, card_ids].sum(axis=1) > 0
    total_n, left_n = n.total[card_ids], n.left[used][:, card_ids]
    d = den[used][:, card_ids]
    total_d = d.sum(axis=0)
    left = _effects(left_n, total_d[None, :] - d)
    return _effects(total_n, total_d), left, total_d


def reference_scale(band_pp: float) -> float:
    """The type reference's scale in win-share units (effects are fractions, bands pp)."""
    return REFERENCE_BANDS * band_pp / 100.0


def biweight_location(x: np.ndarray, scale: float, start: np.ndarray) -> np.ndarray:
    """Tukey's biweight location of x (... x n, NaN absent) along its last axis: the mean of x
    weighted by (1 − u²)², u = (x − location) / scale (0 beyond |u| = 1), REFERENCE_STEPS
    weighted-mean steps from `start` (...). An infinite scale gives the plain mean."""
    ok = np.isfinite(x)
    xv = np.where(ok, x, 0.0)
    r = np.asarray(start, np.float64).copy()
    for _ in range(REFERENCE_STEPS):
        u = (xv - r[..., None]) / scale if np.isfinite(scale) else np.zeros_like(xv)
        w = np.where(ok & (np.abs(u) < 1), (1 - u * u) ** 2, 0.0)
        sw = w.sum(axis=-1)
        r = np.where(sw > 0, (w * xv).sum(axis=-1) / np.where(sw > 0, sw, 1.0), r)
    return r


def type_reference(e: np.ndarray, card_types: np.ndarray, scale: float) -> np.ndarray:
    """Per card (last axis), its type's reference: the biweight location of the *other* cards of
    its type (started from their median), NaN for a type of one card or none other dealt.
    `e` is one row of effects or a block of rows (each left-out replicate)."""
    e = np.asarray(e, np.float64)
    out = np.full_like(e, np.nan)
    for t in np.unique(card_types):
        idx = np.nonzero(card_types == t)[0]
        if len(idx) < 2:
            continue
        for pos, c in enumerate(idx):
            others = e[..., np.delete(idx, pos)]
            others = np.where(np.isfinite(others), others, np.nan)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # no other card of the type dealt
                start = np.nanmedian(others, axis=-1)
            ref = biweight_location(others, scale, np.where(np.isfinite(start), start, 0.0))
            out[..., c] = np.where(np.isfinite(start), ref, np.nan)
    return out


def within_type_contrast(e: np.ndarray, card_types: np.ndarray, scale: float) -> np.ndarray:
    """Each card's effect minus its type's reference (type_reference)."""
    return np.asarray(e, np.float64) - type_reference(e, card_types, scale)


def card_effects(num: np.ndarray | Numerators, den: np.ndarray, card_ids: np.ndarray,
                 card_types: np.ndarray, band_pp: float = DEFAULT_BAND_PP) -> CardEffects:
    """Opening-hand effects and within-type contrasts of the cards `card_ids`, from per-block
    sums (opening_hand_sums; or their seat-adjusted Numerators), with their delete-a-block
    jackknife: the contrast against the type's reference (type_reference, at the scale of the
    card band `band_pp`) is recomputed in every left-out replicate, so its standard error holds
    the reference's own sampling error (and the seat adjustment's refit)."""
    est, left, dealt = _by_block(num, den, card_ids)
    scale = reference_scale(band_pp)

    def contrasts(e):
        return within_type_contrast(e, card_types, scale)

    return CardEffects(card_ids, dealt.astype(np.int64), est, jackknife_se(left), contrasts(est),
                       jackknife_se(contrasts(left)), left.shape[0] - 1)


AVOIDED_RATIO = 0.5  # a card taken at less than this share of its type's rate is avoided
AVOIDED_MIN_CHANCES = 200  # a card dealt (or offered) fewer times is never named avoided
RATE_REFERENCE_SCALE = float(np.log(4.0))  # a type's rate: biweight of log rates, a card 4x off weighs nothing


@dataclass
class RateRatios:
    """Per card: a rate (kept when dealt, or bought when offered), its type's rate (the other
    cards' reference, on log rates) and their ratio with its delete-a-block jackknife."""

    rate: np.ndarray
    type_rate: np.ndarray
    ratio: np.ndarray
    ratio_se: np.ndarray
    chances: np.ndarray
    df: int


def rate_ratios(num: np.ndarray, den: np.ndarray, card_types: np.ndarray) -> RateRatios:
    """From per-block counts (blocks x cards: takes, chances), each card's rate against its
    type's: the type's rate is exp of the biweight location of the other cards' log rates at
    scale log 4 (type_reference: one card taken far more often cannot lift it; a card never
    taken weighs nothing), recomputed in every left-out replicate."""
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    used = den.sum(axis=1) > 0
    tn, td = num.sum(axis=0), den.sum(axis=0)

    def figures(n, d):
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(d > 0, n / np.where(d > 0, d, 1.0), np.nan)
            ref = np.exp(type_reference(np.log(rate), card_types, RATE_REFERENCE_SCALE))
            return rate, ref, np.where(ref > 0, rate / np.where(ref > 0, ref, 1.0), np.nan)

    rate, ref, ratio = figures(tn, td)
    _, _, left = figures(tn[None, :] - num[used], td[None, :] - den[used])
    return RateRatios(rate, ref, ratio, jackknife_se(left), td, left.shape[0] - 1)


@dataclass
class Avoided:
    keep_high: np.ndarray  # the keep ratio's upper bound, simultaneous over cards and both rates
    pick_high: np.ndarray
    by_keep: np.ndarray  # named avoided by its keep rate
    by_pick: np.ndarray

    @property
    def avoided(self) -> np.ndarray:
        return self.by_keep | self.by_pick


def avoided(keep: RateRatios, pick: RateRatios, level: float = 0.95) -> Avoided:
    """A card is avoided when its keep or its pick ratio against its type is shown below
    AVOIDED_RATIO: the upper end of its interval, simultaneous (Šidák) over every card's two
    ratios, lies below it, with at least AVOIDED_MIN_CHANCES chances."""
    ok_k = np.isfinite(keep.ratio) & np.isfinite(keep.ratio_se) & (keep.chances >= AVOIDED_MIN_CHANCES)
    ok_p = np.isfinite(pick.ratio) & np.isfinite(pick.ratio_se) & (pick.chances >= AVOIDED_MIN_CHANCES)
    m = max(int(ok_k.sum() + ok_p.sum()), 1)
    quant = stats.t.ppf(0.5 + sidak(level, m) / 2, min(keep.df, pick.df))
    kh, ph = keep.ratio + quant * keep.ratio_se, pick.ratio + quant * pick.ratio_se
    return Avoided(kh, ph, ok_k & (kh < AVOIDED_RATIO), ok_p & (ph < AVOIDED_RATIO))


@dataclass
class TypeEffects:
    """Per card type (docs/method.md §5): the mean opening-hand effect of its cards
    minus the mean over all cards, with its delete-a-block jackknife."""

    types: np.ndarray  # type names, in first-seen order
    cards: np.ndarray  # cards of each type with an estimate
    gap: np.ndarray
    gap_se: np.ndarray
    df: int


def type_effects(num: np.ndarray | Numerators, den: np.ndarray, card_ids: np.ndarray,
                 card_types: np.ndarray) -> TypeEffects:
    """Each type's mean card effect minus the all-card mean (cards weigh equally, as a designer
    counts them), from the same per-block sums as card_effects."""
    est, left, _ = _by_block(num, den, card_ids)
    names = np.array(list(dict.fromkeys(card_types)))

    def gaps(e):
        ok = np.isfinite(est)  # a card never dealt has no effect; it leaves every mean
        overall = np.nanmean(np.where(ok, e, np.nan), axis=-1)
        return np.stack([np.nanmean(np.where(ok & (card_types == t), e, np.nan), axis=-1) - overall
                         for t in names], axis=-1)

    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a type none of whose cards was dealt
        value, leave_out = gaps(est), gaps(left)
    counts = np.array([int((np.isfinite(est) & (card_types == t)).sum()) for t in names])
    return TypeEffects(names, counts, value, jackknife_se(leave_out), left.shape[0] - 1)


def bh_qvalues(p: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg q-values."""
    p = np.asarray(p, np.float64)
    n = len(p)
    order = np.argsort(p)
    ranked = p[order] * n / np.arange(1, n + 1)
    q = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(n)
    out[order] = np.minimum(q, 1.0)
    return out


@dataclass
class Screening:
    p_value: np.ndarray
    q_value: np.ndarray
    sim_low: np.ndarray  # Šidák-simultaneous interval over the cards
    sim_high: np.ndarray
    flagged: np.ndarray  # q < 0.05 and the simultaneous interval wholly outside the band


def screen(estimate: np.ndarray, se: np.ndarray, df: int, band: float, level: float = 0.95) -> Screening:
    """Screen cards on an estimate: BH over the cards' two-sided t-tests of zero, simultaneous
    intervals, and the band criterion."""
    ok = np.isfinite(estimate) & np.isfinite(se) & (se > 0)
    t = np.where(ok, estimate / np.where(ok, se, 1.0), 0.0)
    p = np.where(ok, 2 * stats.t.sf(np.abs(t), df), 1.0)
    q = bh_qvalues(p)
    m = int(ok.sum())
    quant = stats.t.ppf(0.5 + sidak(level, max(m, 1)) / 2, df)
    lo, hi = estimate - quant * se, estimate + quant * se
    outside = (lo > band) | (hi < -band)
    return Screening(p, q, lo, hi, ok & (q < 0.05) & outside)


def shrink(estimate: np.ndarray, se: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Empirical-Bayes shrinkage of each estimate toward its group's mean: weight
    tau^2 / (tau^2 + se^2) with tau^2 = max(0, Var(estimates) - mean(se^2)) within the group."""
    out = np.array(estimate, np.float64)
    for g in np.unique(groups):
        idx = np.nonzero((groups == g) & np.isfinite(estimate))[0]
        if len(idx) < 2:
            continue
        e, s = estimate[idx], se[idx]
        m = e.mean()
        tau2 = max(0.0, e.var(ddof=1) - np.mean(s * s))
        w = tau2 / (tau2 + s * s) if tau2 > 0 else np.zeros_like(s)
        out[idx] = m + w * (e - m)
    return out


def rank_intervals(estimate: np.ndarray, se: np.ndarray, seed: int, draws: int = 2000,
                   level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Rank (1 = highest) intervals from draws of N(estimate, se) per card, seeded."""
    ok = np.isfinite(estimate) & np.isfinite(se)
    e, s = np.where(ok, estimate, -np.inf), np.where(ok, se, 0.0)
    rng = np.random.default_rng(seed)
    sims = e[None, :] + s[None, :] * rng.standard_normal((draws, len(e)))
    ranks = (-sims).argsort(axis=1).argsort(axis=1) + 1
    lo = np.quantile(ranks, 0.5 - level / 2, axis=0, method="lower").astype(int)
    hi = np.quantile(ranks, 0.5 + level / 2, axis=0, method="higher").astype(int)
    return lo, hi


def atp_value(row: pd.Series) -> float:
    """A card's cost in ATP by the printed convention (docs/method.md): its ATP, Protein,
    Carbohydrate and Lipid, plus its Golgi resource and the ER load it needs (Protein loaded at the
    Rough ER is paid in mRNA; Lipid at the Smooth ER in Lipid)."""
    t = row["type"]
    v = row["atp"] * ATP_VALUE["atp"]
    if t == "enzyme":
        v += row["protein"] * ATP_VALUE["protein"] + row["carb"] * ATP_VALUE["carb"]
    elif t == "steroid_hormone":
        v += row["lipid"] * ATP_VALUE["lipid"]
    elif t in ("protein_hormone", "protein_receptor", "steroid_receptor"):
        v += row["protein"] * ATP_VALUE["mrna"]
    golgi = row.get("golgi")
    if isinstance(golgi, str) and golgi:
        v += ATP_VALUE[golgi]
    return float(v)


def market(offered: pd.DataFrame, bought: pd.DataFrame, discarded: pd.DataFrame) -> pd.DataFrame:
    """Per card and effective price: exposures (Phase 1s in a Card Area slot at that price),
    purchases, pick rate; and per card the discards unbought. Inputs: long block tables
    (card, slot, price, count) of one segment."""
    ex = offered.groupby(["card", "price"], observed=True)["count"].sum().rename("exposures")
    by = bought.groupby(["card", "price"], observed=True)["count"].sum().rename("purchases")
    t = pd.concat([ex, by], axis=1).fillna(0).astype(np.int64).reset_index()
    t["pick_rate"] = t["purchases"] / t["exposures"].where(t["exposures"] > 0)
    d = discarded.groupby("card", observed=True)["count"].sum().rename("discarded_unbought")
    return t.merge(d.reset_index(), on="card", how="left").fillna({"discarded_unbought": 0})


ASSOCIATION_GAMES = 50_000  # the association's regression uses the run's first games


def association(df: pd.DataFrame, players: int, card_ids: np.ndarray,
                max_games: int = ASSOCIATION_GAMES):
    """Association, not an effect: the within-game difference in win share between completers
    of a card and the others, adjusted for cards completed, seat and policy (OLS with game fixed
    effects, cluster-robust by game; the first max_games games). Returns (beta, se) per card."""
    d = df.iloc[: max_games * players]
    n_games = len(d) // players

    def demean(x):
        x = np.asarray(x, np.float64).reshape(n_games, players, -1)
        return (x - x.mean(axis=1, keepdims=True)).reshape(n_games * players, -1)

    seats = np.eye(players)[d["seat"].to_numpy()][:, 1:]
    n_pol = int(d["policy"].max()) + 1
    pol = np.eye(n_pol)[d["policy"].to_numpy()][:, 1:]
    cards_done = d["cards_completed"].to_numpy(np.float64)[:, None]
    z = demean(np.hstack([seats, pol, cards_done]))
    z = z[:, np.abs(z).sum(axis=0) > 0]
    y = demean(d["win_share"].to_numpy())[:, 0]
    x = demean(mask_bits(d["completed_mask"].to_numpy())[:, card_ids])
    if z.shape[1]:
        # residuals after the controls: projection on z through the small normal equations
        # (z has a handful of columns; pinv copes with collinear controls as lstsq did)
        zz = np.linalg.pinv(z.T @ z)
        y = y - z @ (zz @ (z.T @ y))
        x -= z @ (zz @ (z.T @ x))
    x3 = x.reshape(n_games, players, -1)
    y3 = y.reshape(n_games, players)
    sxx_g = np.einsum("gpk,gpk->gk", x3, x3)  # per game (cluster) sums, no rows x cards temporaries
    sxy_g = np.einsum("gpk,gp->gk", x3, y3)
    sxx = sxx_g.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        beta = sxy_g.sum(axis=0) / sxx
        score = sxy_g - sxx_g * beta[None, :]  # per game: sum of x * (y - x * beta)
        se = np.sqrt((score ** 2).sum(axis=0)) / sxx
    return beta, se
