"""Helpers the report sections share: estimates as table text and columns, and per-block sums
for the jackknife."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcell.reports.intervals import Estimate, jackknife_ratio


def fmt(est: Estimate, scale: float = 1.0, digits: int = 1, shift: float = 0.0) -> str:
    """"value (low to high)" of an estimate, scaled (e.g. x100 for percent)."""
    if not np.isfinite(est.value):
        return "n/a"
    e = est.scaled(scale, shift)
    if not np.isfinite(e.half_width):
        return f"{e.value:.{digits}f}"
    # a quantile's interval (bootstrap bounds) of whole numbers can be one number: not "exact"
    return interval_text(e.value, e.low, e.high, digits,
                         same=EXACT if e.bounds is None else f"every resample gives {e.value:.{digits}f}")


EXACT = "the same in every game"  # an interval of width zero: no game differs
MORE_DIGITS = 3  # digits added at most to keep an interval's ends apart
NOISE = 1e-9  # relative width below which an interval's ends differ by floating-point rounding only


def interval_text(v: float, lo: float, hi: float, digits: int = 1, sign: bool = False, unit: str = "",
                  same: str = EXACT) -> str:
    """"value (low to high)". An interval that would print with equal ends says why: it is
    printed with as many more digits (up to MORE_DIGITS) as part its ends, and one of width
    zero reads "value (`same`)": by default, the same in every game."""
    if not np.isfinite(v):
        return "n/a"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{v:{'+' if sign else ''}.{digits}f}{unit}"
    # ends apart by rounding error alone (a figure the same in every game, summed in another
    # order) are one value: "7.333 (within ±1e-14)" says nothing a designer can use
    if abs(hi - lo) <= NOISE * max(1.0, abs(v)):
        return f"{v:{'+' if sign else ''}.{digits}f}{unit} ({same})"
    for d in range(digits, digits + MORE_DIGITS + 1):
        f = f"{{:{'+' if sign else ''}.{d}f}}"

        def text(x, f=f):  # a zero prints unsigned: "-0.0 to +0.0" is one value, not an interval
            t = f.format(x)
            return t.replace("-", "+" if sign else "") if float(t) == 0 else t

        if text(lo) != text(hi):
            return f"{text(v)}{unit} ({text(lo)} to {text(hi)})"
    width = max(abs(lo - v), abs(hi - v))
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    return f"{f.format(v)}{unit} (within ±{width:.1g})"


def ci_text(values, low, high, scale: float = 1.0, digits: int = 1, sign: bool = False) -> list[str]:
    """interval_text for columns of estimates and their bounds (tables for reading)."""
    return [interval_text(v, lo, hi, digits, sign) for v, lo, hi in
            zip(np.asarray(values, float) * scale, np.asarray(low, float) * scale, np.asarray(high, float) * scale)]


def ci_of(df: pd.DataFrame, col: str, **kwargs) -> list[str]:
    """ci_text of the columns col, col_low, col_high of a table."""
    return ci_text(df[col], df[f"{col}_low"], df[f"{col}_high"], **kwargs)


def est_columns(prefix: str, est: Estimate, scale: float = 1.0, shift: float = 0.0) -> dict:
    """CSV columns of an estimate: value, low, high, se."""
    e = est.scaled(scale, shift)
    return {prefix: e.value, f"{prefix}_low": e.low, f"{prefix}_high": e.high, f"{prefix}_se": e.se}


class Blocks:
    """Each row's block (0..k-1), ready to sum columns by block. Records come in game order,
    so their blocks are sorted and each block's rows are one run: the bounds of the runs are
    found once, and each column is summed with np.add.reduceat in one pass (several times
    faster than np.bincount with weights); unsorted blocks fall back to bincount."""

    def __init__(self, blocks: np.ndarray, k: int):
        self.blocks = np.asarray(blocks)
        self.k = k
        self.sorted = len(self.blocks) < 2 or bool(np.all(self.blocks[1:] >= self.blocks[:-1]))
        if self.sorted:
            bounds = np.searchsorted(self.blocks, np.arange(k + 1))
            self.filled = bounds[:-1] < bounds[1:]
            self.starts = bounds[:-1][self.filled]
            self.end = bounds[-1]

    def totals(self, values: np.ndarray | None = None) -> np.ndarray:
        """Per-block sums of `values` (None counts rows)."""
        v = np.ones(len(self.blocks)) if values is None else np.asarray(values, np.float64)
        if not self.sorted:
            return np.bincount(self.blocks, weights=v, minlength=self.k)
        out = np.zeros(self.k)
        if len(self.starts):
            out[self.filled] = np.add.reduceat(v[: self.end], self.starts)
        return out


class BlockSums:
    """Per-block sums of record columns and a `rows` count, optionally by one integer key with
    values 0 .. n_keys - 1 (seat, policy label, winner), added part by part
    (RunData.record_parts) so that memory does not grow with the run."""

    def __init__(self, k: int, columns: list[str], key: str | None = None, n_keys: int = 1):
        self.k, self.columns, self.key = k, columns, key
        self.n = n_keys if key else 1
        self.sums = np.zeros((len(columns) + 1, k * self.n))

    def add(self, blocks: np.ndarray, df: pd.DataFrame) -> None:
        """Add a part's rows, `blocks` being each row's block."""
        combined = blocks * self.n + df[self.key].to_numpy(np.int64) if self.key else blocks
        m = self.k * self.n
        for j, c in enumerate(self.columns):
            self.sums[j] += np.bincount(combined, weights=df[c].to_numpy(np.float64), minlength=m)
        self.sums[-1] += np.bincount(combined, minlength=m)

    def frame(self) -> pd.DataFrame:
        """The sums by block (and key value, only the values that occur), columns + `rows`."""
        out = pd.DataFrame(dict(zip(self.columns + ["rows"], self.sums)))
        if not self.key:
            out.index = pd.Index(range(self.k), name="block")
            return out
        out.index = pd.MultiIndex.from_product([range(self.k), range(self.n)], names=["block", self.key])
        seen = out["rows"].groupby(level=self.key).sum() > 0
        return out[out.index.get_level_values(self.key).isin(seen.index[seen])]


def ratio_by(sums: pd.DataFrame, num: str, den: str, key: str) -> dict:
    """Jackknife ratio num / den per value of `key` (sums indexed by block and key)."""
    out = {}
    for k, part in sums.groupby(level=key):
        out[k] = jackknife_ratio(part[num].to_numpy(), part[den].to_numpy())
    return out
