"""The designer tools (compare, sweep, seats, calibrate, probe): each one's loop over the variant
runs it plays, one module a tool, above config, runner and reports. The command line supplies
how a run is played (`Plays`: progress bars, resume, one-line errors), so a tool holds no
terminal code and a test can drive it directly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ToolError(Exception):
    """Bad input to a designer tool, one line (the command line prints it, exit status 2)."""


@dataclass(frozen=True)
class Plays:
    """How a tool plays its runs. `into(config, root, games, seed, report=False,
    own_players=False)` plays the config into the run directory `root` (resuming it if it holds
    that run already, so an interrupted tool replays nothing) and returns it; games and seed None
    mean the config's. `players`, the command's player counts, replace the config's unless
    own_players. `say` tells the user what comes next. `margins(game, players, policy, field,
    deviant, seed, deals)`, for the tools that measure many small deviations (fit): player 0's
    margin over the fair share on each deal of a duplicate match on warm workers
    (runner/match.py), player 0 playing `policy` with the worths `deviant`, the others `field`."""

    into: Callable[..., Path]
    say: Callable[[str], None]
    players: tuple[int, ...] | None = None
    margins: Callable[..., Any] | None = None
    workers: int | None = None  # local workers of every run (the command's one shared pool)
    dask: str | None = None


def holdout_seed(seed: int) -> int:
    """The seed of a tool's holdout runs: fresh games, a fixed function of the tool's seed (an
    LCG step, so a repeated command finds its holdout runs on disk)."""
    return (seed * 6364136223846793005 + 1442695040888963407) % 2**63
