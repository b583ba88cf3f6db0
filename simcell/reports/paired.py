"""Paired differences between two runs (docs/method.md §8): run B against
run A on the same games. Game g of a segment is the same deal, seat order and chance streams in
both runs, and block b holds the same games, so the delete-a-block jackknife of a difference
B − A, computed block by block on both runs at once, is the interval of per-game paired
differences. Runs on different seeds are compared unpaired (the two jackknife variances add).

Every figure is a function of per-block sums (`Sums`: name -> blocks x ...): `difference`
evaluates it on both runs, whole and with each block left out."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from simcell.reports.intervals import watched_t

Sums = dict[str, np.ndarray]
Statistic = Callable[[dict[str, np.ndarray]], np.ndarray]


@dataclass
class Difference:
    """Figures of run A and run B and their difference B − A, with its standard error."""

    a: np.ndarray
    b: np.ndarray
    diff: np.ndarray
    se: np.ndarray
    df: int
    paired: bool
    looks: int = 1  # > 1: an interval that stays valid over this many looks (intervals.watched_t)

    def bounds(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        q = (stats.t.ppf(0.5 + level / 2, max(self.df, 1)) if self.looks <= 1
             else watched_t(self.looks, self.df, level))
        return self.diff - q * self.se, self.diff + q * self.se

    def p_values(self) -> np.ndarray:
        """Two-sided t-test of no difference (1 where the difference is exactly 0 or undefined)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.where(self.se > 0, np.abs(self.diff) / self.se, 0.0)
        p = 2 * stats.t.sf(t, max(self.df, 1))
        return np.where(np.isfinite(p) & (self.se > 0), p, 1.0)


def _totals(sums: Sums) -> dict[str, np.ndarray]:
    return {k: v.sum(axis=0) for k, v in sums.items()}


def _left_out(stat: Statistic, sums: Sums, totals: dict[str, np.ndarray]) -> np.ndarray:
    k = next(iter(sums.values())).shape[0]
    return np.array([stat({n: totals[n] - sums[n][i] for n in sums}) for i in range(k)])


def jackknife_se(left: np.ndarray) -> np.ndarray:
    """The jackknife standard error of each column from its leave-one-block-out values (k x n)."""
    k = left.shape[0]
    # a column with no left-out value (a zero crossing no left-out sample has) must not print
    # numpy's "Mean of empty slice" on the user's terminal
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.sqrt((k - 1) / k * np.nansum((left - np.nanmean(left, axis=0)) ** 2, axis=0))


def difference(stat: Statistic, a: Sums, b: Sums, paired: bool = True, looks: int = 1) -> Difference:
    """stat(B) − stat(A) with its delete-a-block jackknife: over the shared blocks when paired,
    else each run's own jackknife variance added; `looks` > 1 for results watched as they
    stream (its interval then holds over that many looks)."""
    ta, tb = _totals(a), _totals(b)
    with np.errstate(invalid="ignore", divide="ignore"):
        va, vb = np.asarray(stat(ta), float), np.asarray(stat(tb), float)
        la, lb = _left_out(stat, a, ta), _left_out(stat, b, tb)
    ka, kb = la.shape[0], lb.shape[0]
    if paired:
        if ka != kb:
            raise ValueError("paired runs need the same blocks")
        se, df = jackknife_se(lb - la), ka - 1
    else:
        se, df = np.hypot(jackknife_se(la), jackknife_se(lb)), min(ka, kb) - 1
    return Difference(va, vb, vb - va, se, df, paired, looks)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values (step-down, family-wise error)."""
    p = np.asarray(p, float)
    order = np.argsort(p)
    m = len(p)
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def moved(d: Difference, band: float | np.ndarray, level: float = 0.95) -> np.ndarray:
    """Where the difference's interval lies wholly outside the band ±band."""
    lo, hi = d.bounds(level)
    return (lo > band) | (hi < -np.asarray(band))


def jackknife_many(stat: Callable[[list[dict[str, np.ndarray]]], np.ndarray], runs: list[Sums]):
    """A figure of several runs on the same games (a sweep's variants: a slope, a crossing),
    jackknifed by leaving each block out of every run at once. Returns (value, se, df)."""
    totals = [_totals(s) for s in runs]
    k = next(iter(runs[0].values())).shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.asarray(stat(totals), float)
        left = np.array([stat([{n: t[n] - s[n][i] for n in s} for t, s in zip(totals, runs)])
                         for i in range(k)], float)
    return value, jackknife_se(left), k - 1
