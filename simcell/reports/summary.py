"""The short summary a finished run prints (the full balance report builds on the same run
directory): per player count and field, win share by seat and mean HP by source, each with a
jackknife interval over blocks, and the tie rate. Read from the block aggregates alone."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from simcell.reports.estimates import MORE_DIGITS
from simcell.reports.intervals import jackknife_ratio
from simcell.vocabulary import HP_SOURCES, RUN_FILE, WIN_SHARE_SCALE


def _pm(est, scale: float = 1.0, digits: int = 1) -> str:
    """"value ± half-width", with more digits (up to MORE_DIGITS) until the half-width shows: at
    a million games "1.5 ± 0.0" would read as exact."""
    h = est.half_width * scale
    d = digits
    while d < digits + MORE_DIGITS and h > 0 and round(h, d) == 0:
        d += 1
    return f"{est.value * scale:.{d}f} ± {h:.{d}f}"


def summary_text(root: Path) -> str:
    """The summary of a complete run directory, as plain text."""
    root = Path(root)
    meta = json.loads((root / RUN_FILE).read_text())
    seat = pd.read_parquet(root / "blocks" / "seat.parquet")
    lines = [f"run {root}  ({meta['games']:,} games, seed {meta['seed']}, "
             f"content hash {meta['content_hash'][:16]})",
             "intervals: 95%, jackknife over blocks of games"]
    for seg in meta["segments"]:
        p, f = seg["players"], seg["field"]
        rows = seat[(seat.players == p) & (seat.field == f)]
        by_block_seat = rows.groupby(["block", "seat"]).sum(numeric_only=True)
        lines.append("")
        lines.append(f"{p} players, field {seg['field_name']!r}: {seg['games']:,} games in "
                     f"{seg['blocks']} blocks")
        head = f"  {'seat':>4}  {'win share %':>14}  {'mean HP':>12}  {'HP above table':>15}"
        lines.append(head)
        for s in range(p):
            b = by_block_seat.xs(s, level="seat")
            win = jackknife_ratio(b["win_share_x60"] / WIN_SHARE_SCALE, b["games"])
            hp = jackknife_ratio(b["final_hp"], b["games"])
            above = jackknife_ratio(b["above_table_xp"] / p, b["games"])
            lines.append(f"  {s:>4}  {_pm(win, 100):>14}  {_pm(hp):>12}  {_pm(above, 1, 2):>15}")
        per_block = rows.groupby("block").sum(numeric_only=True)
        player_games = per_block["games"]
        sources = "  ".join(
            f"{src} {jackknife_ratio(per_block[f'hp_{src}'], player_games).value:.1f}"
            for src in HP_SOURCES
            if per_block[f"hp_{src}"].sum() != 0
        )
        lines.append(f"  mean HP per player by source: {sources}")
        games = pd.read_parquet(root / "games" / f"players={p}" / f"field={f}", columns=["game", "tie"])
        tie_rate = games["tie"].mean()
        lines.append(f"  ties: {100 * tie_rate:.2f}% of games")
    return "\n".join(lines) + "\n"
