"""The report's interval engine (docs/method.md §1).

- Default, for any statistic of sums (means, ratios, differences, shares): the delete-a-group
  jackknife over the K blocks of a run, t with K - 1 degrees of freedom (`jackknife`,
  `jackknife_ratio`).
- Fast paths where they are valid (tests check them against the jackknife): Wilson for a
  game-level yes/no event (`wilson`), a t-interval on one value per game (`t_mean`).
- Quantiles: block bootstrap over games, from per-block histograms of an integer figure, with
  draws from the run's seed (`bootstrap_quantile`).
- Several intervals at once: Šidák (`sidak`).
- Verdicts against a tolerance band (`verdict`), equal-seat tests (`seat_equality`), and
  sample-size advice (`games_needed`, `detectable_effect`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import signal, stats

LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    """A figure with its standard error and the degrees of freedom of its t quantile
    (df = 0: normal; an interval from quantiles sets `bounds`)."""

    value: float
    se: float
    df: int = 0
    level: float = LEVEL
    bounds: tuple[float, float] | None = None
    method: str = "jackknife over blocks"

    def quantile(self, level: float | None = None) -> float:
        p = 0.5 + (level or self.level) / 2
        return float(stats.t.ppf(p, self.df) if self.df > 0 else stats.norm.ppf(p))

    @property
    def half_width(self) -> float:
        if self.bounds is not None:
            return (self.bounds[1] - self.bounds[0]) / 2
        if not np.isfinite(self.se):
            return float("nan")
        return self.quantile() * self.se

    @property
    def low(self) -> float:
        return self.bounds[0] if self.bounds is not None else self.value - self.half_width

    @property
    def high(self) -> float:
        return self.bounds[1] if self.bounds is not None else self.value + self.half_width

    def at_level(self, level: float) -> Estimate:
        """The same estimate with another confidence level (e.g. simultaneous)."""
        return Estimate(self.value, self.se, self.df, level, None, self.method)

    def scaled(self, factor: float, shift: float = 0.0) -> Estimate:
        b = None if self.bounds is None else (self.bounds[0] * factor + shift,
                                               self.bounds[1] * factor + shift)
        return Estimate(self.value * factor + shift, self.se * abs(factor), self.df, self.level, b,
                        self.method)


def jackknife(statistic: Callable[..., float], *block_sums: np.ndarray, level: float = LEVEL) -> Estimate:
    """statistic(*totals) of per-block sums (each array: blocks first), with its delete-a-block
    jackknife standard error. Blocks where every array is zero are dropped (they hold no games)."""
    arrays = [np.asarray(a, np.float64) for a in block_sums]
    k_all = arrays[0].shape[0]
    used = np.zeros(k_all, bool)
    for a in arrays:
        used |= np.abs(a.reshape(k_all, -1)).sum(axis=1) != 0
    arrays = [a[used] for a in arrays]
    k = int(used.sum())
    totals = [a.sum(axis=0) for a in arrays]
    value = float(statistic(*totals))
    if k < 2:
        return Estimate(value, float("nan"), 0, level)
    left_out = np.array([statistic(*[t - a[i] for t, a in zip(totals, arrays)]) for i in range(k)],
                        np.float64)
    se = float(np.sqrt((k - 1) / k * np.sum((left_out - left_out.mean()) ** 2)))
    return Estimate(value, se, k - 1, level)


def jackknife_ratio(numerator: np.ndarray, denominator: np.ndarray, level: float = LEVEL) -> Estimate:
    """sum(numerator) / sum(denominator) over blocks (one sum per block), jackknifed;
    vectorised form of `jackknife` for the commonest statistic."""
    num = np.asarray(numerator, np.float64)
    den = np.asarray(denominator, np.float64)
    keep = den != 0
    num, den = num[keep], den[keep]
    k = len(num)
    if k == 0:
        return Estimate(float("nan"), float("nan"), 0, level)
    value = num.sum() / den.sum()
    if k < 2:
        return Estimate(float(value), float("nan"), 0, level)
    left_out = (num.sum() - num) / (den.sum() - den)
    se = np.sqrt((k - 1) / k * np.sum((left_out - left_out.mean()) ** 2))
    return Estimate(float(value), float(se), k - 1, level)


def wilson(successes: int, n: int, level: float = LEVEL) -> Estimate:
    """Wilson score interval of a proportion of games (a game-level yes/no event)."""
    if n == 0:
        return Estimate(float("nan"), float("nan"), 0, level, method="Wilson")
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    se = np.sqrt(p * (1 - p) / n)
    return Estimate(p, float(se), 0, level, (float(centre - half), float(centre + half)), "Wilson")


def t_mean(values: np.ndarray, level: float = LEVEL) -> Estimate:
    """Mean of one value per game with a t-interval."""
    v = np.asarray(values, np.float64)
    n = len(v)
    if n < 2:
        return Estimate(float(v.mean()) if n else float("nan"), float("nan"), 0, level, method="t")
    return Estimate(float(v.mean()), float(v.std(ddof=1) / np.sqrt(n)), n - 1, level, method="t per game")


def sidak(level: float, m: int) -> float:
    """Per-interval level so that m intervals hold jointly with probability `level`."""
    return float(level ** (1.0 / m)) if m > 1 else level


def bootstrap_quantile(histograms: np.ndarray, values: np.ndarray, q: float, seed: int,
                       draws: int = 400, level: float = LEVEL) -> Estimate:
    """Quantile q of an integer figure from per-block histograms (blocks x values), with a
    percentile block-bootstrap interval (blocks resampled with replacement; draws from `seed`)."""
    h = np.asarray(histograms, np.float64)
    h = h[h.sum(axis=1) > 0]

    def quantile(counts: np.ndarray) -> float:
        cum = np.cumsum(counts)
        return float(values[np.searchsorted(cum, q * cum[-1], side="left")])

    point = quantile(h.sum(axis=0))
    rng = np.random.default_rng(seed)
    k = h.shape[0]
    picks = rng.integers(0, k, size=(draws, k))
    boot = np.array([quantile(h[p].sum(axis=0)) for p in picks])
    lo, hi = np.quantile(boot, [0.5 - level / 2, 0.5 + level / 2])
    return Estimate(point, float(boot.std(ddof=1)), 0, level, (float(lo), float(hi)),
                    "block bootstrap")


# -- verdicts --------------------------------------------------------------------------------
IN_BAND, OUT_OF_BAND, INCONCLUSIVE = "in band", "out of band", "inconclusive"


def verdict(est: Estimate, band: float, alpha: float = 0.05) -> str:
    """Against a tolerance band |effect| <= band: "in band" when the equivalence test (TOST at
    alpha, i.e. the 1 - 2 alpha interval) lies inside the band; "out of band" when the
    1 - alpha interval lies wholly outside it; otherwise "inconclusive"."""
    if not np.isfinite(est.value) or not np.isfinite(est.se):
        return INCONCLUSIVE
    tost = est.at_level(1 - 2 * alpha) if est.bounds is None else est
    if -band <= tost.low and tost.high <= band:
        return IN_BAND
    wide = est.at_level(1 - alpha) if est.bounds is None else est
    if wide.low > band or wide.high < -band:
        return OUT_OF_BAND
    return INCONCLUSIVE


# -- equal seats ------------------------------------------------------------------------------
@dataclass(frozen=True)
class TestResult:
    name: str
    statistic: float
    df: int
    p_value: float


def seat_equality(shares: np.ndarray) -> TestResult:
    """Test that every seat has win share 1/n, from per-game win shares (games x seats, ties
    split). Without ties: multinomial goodness of fit on the winner's seat. With ties: Wald
    chi-square (n - 1 df) on the mean share vector with one seat dropped and its empirical
    covariance (docs/method.md; not a contingency test on seats x win/loss)."""
    s = np.asarray(shares, np.float64)
    games, n = s.shape
    if np.all((s == 0) | (s == 1)):
        counts = s.sum(axis=0)
        chi2, p = stats.chisquare(counts)
        return TestResult("multinomial goodness of fit on the winner's seat", float(chi2), n - 1, float(p))
    x = s[:, : n - 1]
    mean = x.mean(axis=0)
    cov = np.cov(x, rowvar=False, ddof=1).reshape(n - 1, n - 1) / games
    d = mean - 1.0 / n
    rank = int(np.linalg.matrix_rank(cov))
    if rank == n - 1:
        w = float(d @ np.linalg.solve(cov, d))
        return TestResult("Wald chi-square on mean win shares", w, n - 1, float(stats.chi2.sf(w, n - 1)))
    # a short run can leave a seat's share constant (it never won, or never tied): the
    # covariance is singular, so the Wald form uses its generalised inverse with df = rank
    # (no test at all when nothing varies)
    name = f"Wald chi-square on mean win shares (singular covariance: too few games, df = rank {rank})"
    if rank == 0:
        return TestResult(name, float("nan"), 0, float("nan"))
    w = float(d @ np.linalg.pinv(cov) @ d)
    return TestResult(name, w, rank, float(stats.chi2.sf(w, rank)))


# -- sample size -------------------------------------------------------------------------------
def games_needed(games: int, half_width: float, target: float) -> int:
    """Games for a target half-width, from the run's own: N x (h / h*)^2."""
    return int(np.ceil(games * (half_width / target) ** 2))


def detectable_effect(se: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest effect detectable with this standard error: (z_{1-alpha/2} + z_power) x SE."""
    return float((stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)) * se)


# -- intervals that may be watched ---------------------------------------------------------------
_WATCHED: dict[tuple[int, float], float] = {}


def _crossing_chance(c: float, looks: int, grid: np.ndarray) -> float:
    """Under no effect, the chance that a standardised running sum Z_k = S_k / sqrt(k) of k
    equal, independent normal increments crosses ±c at any of the looks k = 1..looks: the
    density of S_k on a grid, propagated look by look with the mass beyond ±c·sqrt(k) taken
    out (Armitage, McPherson and Rowe's recursion)."""
    step = grid[1] - grid[0]
    density = stats.norm.pdf(grid)
    kernel_x = np.arange(-8.0, 8.0 + step / 2, step)
    kernel = stats.norm.pdf(kernel_x) * step
    crossed = 0.0
    for k in range(1, looks + 1):
        if k > 1:
            density = np.maximum(signal.fftconvolve(density, kernel, mode="same"), 0.0)
        outside = np.abs(grid) > c * np.sqrt(k)
        crossed += float(density[outside].sum() * step)
        density = np.where(outside, 0.0, density)
    return crossed


def watched_quantile(looks: int, level: float = LEVEL) -> float:
    """The constant normal quantile c of an interval that stays valid however the results are
    watched over `looks` equally spaced looks (Pocock's boundary): under no effect, the chance
    that any of them excludes the truth is 1 − level. One look: the usual quantile. Computed by
    the exact recursion above (a grid of 0.02 standard deviations) and bisection; cached."""
    looks = max(int(looks), 1)
    key = (looks, level)
    if key not in _WATCHED:
        if looks == 1:
            _WATCHED[key] = float(stats.norm.ppf(0.5 + level / 2))
        else:
            reach = 6.0 * np.sqrt(looks) + 8.0  # beyond 6 sqrt(k) nothing is left uncrossed
            grid = np.arange(-reach, reach + 0.01, 0.02)
            lo, hi = float(stats.norm.ppf(0.5 + level / 2)), 6.0
            while hi - lo > 1e-4:
                mid = (lo + hi) / 2
                if _crossing_chance(mid, looks, grid) > 1 - level:
                    lo = mid
                else:
                    hi = mid
            _WATCHED[key] = hi
    return _WATCHED[key]


def watched_t(looks: int, df: int, level: float = LEVEL) -> float:
    """The watched quantile for an interval with a t quantile of `df` degrees of freedom: the
    same tail chance per look, in the t distribution (few blocks early on are not normal)."""
    c = watched_quantile(looks, level)
    tail = float(stats.norm.sf(c))
    return float(stats.t.isf(tail, max(df, 1))) if df > 0 else c
