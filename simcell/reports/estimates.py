"""Helpers the report sections share: estimates as table text and columns, and per-block sums
for the jackknife."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcell.reports.data import RunData, SegmentInfo
from simcell.reports.intervals import Estimate, jackknife_ratio


def fmt(est: Estimate, scale: float = 1.0, digits: int = 1, shift: float = 0.0) -> str:
    """"value (low to high)" of an estimate, scaled (e.g. x100 for percent)."""
    if not np.isfinite(est.value):
        return "n/a"
    e = est.scaled(scale, shift)
    if not np.isfinite(e.half_width):
        return f"{e.value:.{digits}f}"
    return f"{e.value:.{digits}f} ({e.low:.{digits}f} to {e.high:.{digits}f})"


def ci_text(values, low, high, scale: float = 1.0, digits: int = 1, sign: bool = False) -> list[str]:
    """"value (low to high)" for columns of estimates and their bounds (tables for reading)."""
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    out = []
    for v, lo, hi in zip(np.asarray(values, float) * scale, np.asarray(low, float) * scale,
                         np.asarray(high, float) * scale):
        out.append("n/a" if not np.isfinite(v) else
                   f.format(v) if not (np.isfinite(lo) and np.isfinite(hi)) else
                   f"{f.format(v)} ({f.format(lo)} to {f.format(hi)})")
    return out


def ci_of(df: pd.DataFrame, col: str, **kwargs) -> list[str]:
    """ci_text of the columns col, col_low, col_high of a table."""
    return ci_text(df[col], df[f"{col}_low"], df[f"{col}_high"], **kwargs)


def est_columns(prefix: str, est: Estimate, scale: float = 1.0, shift: float = 0.0) -> dict:
    """CSV columns of an estimate: value, low, high, se."""
    e = est.scaled(scale, shift)
    return {prefix: e.value, f"{prefix}_low": e.low, f"{prefix}_high": e.high, f"{prefix}_se": e.se}


def block_totals(blocks: np.ndarray, k: int, values: np.ndarray | None = None) -> np.ndarray:
    """Per-block sums of `values` (None counts rows) over blocks 0..k-1 given each row's
    block. Records come in game order, so their blocks are sorted and each block's rows are one
    run: summed with np.add.reduceat in one pass, several times faster than np.bincount with
    weights; unsorted blocks fall back to bincount."""
    blocks = np.asarray(blocks)
    v = np.ones(len(blocks)) if values is None else np.asarray(values, np.float64)
    if len(blocks) > 1 and not np.all(blocks[1:] >= blocks[:-1]):
        return np.bincount(blocks, weights=v, minlength=k)
    bounds = np.searchsorted(blocks, np.arange(k + 1))
    out = np.zeros(k)
    filled = bounds[:-1] < bounds[1:]
    if filled.any():
        out[filled] = np.add.reduceat(v[: bounds[-1]], bounds[:-1][filled])
    return out


def block_sums(run: RunData, seg: SegmentInfo, df: pd.DataFrame, columns: list[str],
               by: list[str] | None = None) -> pd.DataFrame:
    """Per-block sums of record columns (and a `rows` count), optionally by one other key;
    every (block, key) of the segment is present (zeros where a group has no rows)."""
    blocks = run.block_of_games(seg, df["game"].to_numpy())
    k = seg.blocks
    if by:
        (key,) = by
        codes, uniques = pd.factorize(df[key], sort=True)
        n = len(uniques)
        combined = blocks * n + codes
        index = pd.MultiIndex.from_product([range(k), list(uniques)], names=["block", key])
    else:
        n = 1
        combined = blocks
        index = pd.Index(range(k), name="block")
    if by:
        out = {c: np.bincount(combined, weights=df[c].to_numpy(np.float64), minlength=k * n)
               for c in columns}
        out["rows"] = np.bincount(combined, minlength=k * n).astype(np.float64)
        return pd.DataFrame(out, index=index)
    out = {c: block_totals(blocks, k, df[c].to_numpy(np.float64)) for c in columns}
    out["rows"] = block_totals(blocks, k)
    return pd.DataFrame(out, index=index)


def ratio_by(sums: pd.DataFrame, num: str, den: str, key: str) -> dict:
    """Jackknife ratio num / den per value of `key` (sums indexed by block and key)."""
    out = {}
    for k, part in sums.groupby(level=key):
        out[k] = jackknife_ratio(part[num].to_numpy(), part[den].to_numpy())
    return out
