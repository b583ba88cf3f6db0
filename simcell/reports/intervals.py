"""Intervals over blocks of games (STATISTICS.md, "the unit is the game").

A ratio of block sums (a mean per game, a win share per seat, a share of HP) gets the
delete-a-group jackknife over the K blocks, with a t quantile on K - 1 degrees of freedom.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Estimate:
    value: float
    se: float
    df: int
    level: float = 0.95

    @property
    def half_width(self) -> float:
        if self.df < 1 or not np.isfinite(self.se):
            return float("nan")
        return float(stats.t.ppf(0.5 + self.level / 2, self.df) * self.se)

    @property
    def low(self) -> float:
        return self.value - self.half_width

    @property
    def high(self) -> float:
        return self.value + self.half_width


def jackknife_ratio(numerator: np.ndarray, denominator: np.ndarray, level: float = 0.95) -> Estimate:
    """sum(numerator) / sum(denominator) with its delete-a-block jackknife standard error;
    both arrays hold one sum per block (blocks with a zero denominator are dropped)."""
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
