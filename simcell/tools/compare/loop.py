"""`simcell compare A B`: two run directories compared as they are, or two configs played on the
same seed first (into OUT/a and OUT/b), then the comparison report (tools/compare/report.py)."""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Sequence
from pathlib import Path

from simcell.config.load import load_run_config
from simcell.reports.build import build_report
from simcell.tools.compare.report import build_compare
from simcell.tools import Plays, ToolError
from simcell.tools.rungs.loop import run_rungs


def default_folder(a: Path, b: Path) -> Path:
    """compare-A-B here for two configs; beside B's run directory for two runs."""
    return Path(f"compare-{a.stem}-{b.stem}") if a.is_file() else b.parent / f"compare-{a.name}-{b.name}"


def _same_players_fields_games(a: Path, b: Path, plays: Plays, games: int | None) -> None:
    """Two configs that could not be paired are refused before either plays."""
    ra, rb = load_run_config(a), load_run_config(b)
    if not plays.players and ra.players != rb.players:
        raise ToolError(f"{a.name} and {b.name} differ in player counts (A {list(ra.players)}, "
                        f"B {list(rb.players)}): give --players to play both at the same counts")
    if [replace(f, name="") for f in ra.fields] != [replace(f, name="") for f in rb.fields]:
        raise ToolError(f"{a.name} and {b.name} differ in their policy fields (A: "
                        f"{'; '.join(f.describe() for f in ra.fields)}; B: "
                        f"{'; '.join(f.describe() for f in rb.fields)}): a comparison holds the players fixed")
    if games is None and ra.games != rb.games:
        raise ToolError(f"{a.name} and {b.name} differ in games ({ra.games:,} and {rb.games:,}): "
                        "give --games to play both the same")
    if ra.duplicate != rb.duplicate:
        raise ToolError(f"one of {a.name} and {b.name} is in duplicate mode and the other is not")


def run_compare(a: Path, b: Path, folder: Path, plays: Plays, *, games: int | None = None,
                seed: int | None = None, unpaired: bool = False,
                calibration: Path | None = None, rungs: bool | Sequence[str] = False) -> Path:
    """The comparison of B against A written into `folder`; returns it. With `rungs` (True: the
    config's [report] rungs; or a list of rungs), two configs' runs are each played again under
    the rungs (the changes across skill)."""
    if a.is_file() != b.is_file():
        raise ToolError("give two run directories or two configs, not one of each")
    if a.is_file():
        _same_players_fields_games(a, b, plays, games)
        shared = seed if seed is not None else load_run_config(a).seed
        roots = []
        for name, config in (("a", a), ("b", b)):
            root = plays.into(config, folder / name, games, shared, report=not rungs)
            if rungs:
                run_rungs(config, root, plays, games=games, seed=shared,
                          rungs=None if rungs is True else list(rungs))
                build_report(root)
            roots.append(root)
        a, b = roots
    return build_compare(a, b, folder, unpaired=unpaired, calibration=calibration)
