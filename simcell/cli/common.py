"""What every command shares: the terminal around the Python front door (simcell.api): bad
input as one line and exit status 2, an interrupted run's resume line and exit status 130, and
the options, each declared once (a command gives its own help where its meaning differs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer

T = TypeVar("T")


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _call(fn: Callable[..., T], *args, **kwargs) -> T:
    """Call the front door: its one-line errors end the command with status 2; a run stopped by
    Ctrl-C or SIGTERM prints how to resume it and ends with status 130."""
    from simcell import api

    try:
        return fn(*args, **kwargs)
    except api.SimcellError as exc:
        _fail(str(exc))
    except api.Interrupted as exc:
        if exc.during == "report":
            typer.echo(f"\ninterrupted while writing the report; the run is complete: rebuild the "
                       f"report with simcell report {exc.root}", err=True)
        else:
            typer.echo(f"\ninterrupted: finished chunks are kept; continue with "
                       f"simcell run {exc.config} --resume {exc.root or 'DIR'}", err=True)
        raise typer.Exit(code=130) from None
    raise AssertionError("not reached")  # _fail exits


def _runner(config: Path, opts):
    """The Runner of a config, or the one-line error (exit status 2)."""
    from simcell import api

    return _call(api.runner, config, opts)


def _warm_kernel(loops: set[int], quiet: bool):
    """Compile (or load) the kernel's entry points for these game loops, under a spinner."""
    from simcell import api

    return api.warm_kernel(loops, quiet)


def _split(text: str | None) -> list[str] | None:
    """A comma-separated option as a list (None when not given)."""
    return [x.strip() for x in text.split(",") if x.strip()] if text else None


def _rungs(rungs: str | None, no_rungs: bool) -> bool | list[str]:
    """--rungs A,B / --no-rungs as the front door's `rungs`: the config's (True), none, or these."""
    if no_rungs and rungs:
        _fail("--rungs and --no-rungs: give one")
    return False if no_rungs else (_split(rungs) or True)


# -- the options, each declared once ------------------------------------------------------------
def _out(help: str) -> Any:
    return typer.Option(None, "--out", "-o", help=help)


def _games(help: str, minimum: int = 1) -> Any:
    return typer.Option(None, "--games", "-n", min=minimum, help=help)


def _calibration(what: str = "state differences in ATP too") -> Any:
    return typer.Option(None, "--calibration", help=f"A simcell calibrate folder: {what}.")


def _rungs_option(help: str) -> Any:
    return typer.Option(None, "--rungs", help=help)


_NO_RUNGS = typer.Option(False, "--no-rungs", help="Play no rung: every finding checked under the "
                         "config's own field alone.")
_SEED = typer.Option(None, "--seed", min=0, help="Seed (default: the config's).")
_PLAYERS = typer.Option(None, "--players", "-p", help="Player count(s) instead of the config's; "
                        "repeat for several (-p 3 -p 5).")
_WORKERS = typer.Option(None, "--workers", "-w", min=1, help="Local worker processes (default: "
                        "every core).")
_DASK = typer.Option(None, "--dask", help="Run on this Dask scheduler (tcp://HOST:8786).")
_FORCE = typer.Option(False, "--force", help="Replace the runs.")
_QUIET = typer.Option(False, "--quiet", "-q", help="No progress bars.")
