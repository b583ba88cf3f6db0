"""`simcell compare A B`: two run directories compared as they are, or two configs played on the
same seed first (into OUT/a and OUT/b), then the comparison report (reports/compare.py)."""

from __future__ import annotations

from pathlib import Path

from simcell.config.load import load_run_config
from simcell.reports.compare import build_compare
from simcell.tools import Plays, ToolError


def default_folder(a: Path, b: Path) -> Path:
    """compare-A-B here for two configs; beside B's run directory for two runs."""
    return Path(f"compare-{a.stem}-{b.stem}") if a.is_file() else b.parent / f"compare-{a.name}-{b.name}"


def run_compare(a: Path, b: Path, folder: Path, plays: Plays, *, games: int | None = None,
                seed: int | None = None, unpaired: bool = False,
                calibration: Path | None = None) -> Path:
    """The comparison of B against A written into `folder`; returns it."""
    if a.is_file() != b.is_file():
        raise ToolError("give two run directories or two configs, not one of each")
    if a.is_file():
        shared = seed if seed is not None else load_run_config(a).seed
        a, b = (plays.into(config, folder / name, games, shared, report=True)
                for name, config in (("a", a), ("b", b)))
    return build_compare(a, b, folder, unpaired=unpaired, calibration=calibration)
