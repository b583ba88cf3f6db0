"""The `simcell` command line: thin typer commands over the config, runner, reports, tools and
studio rooms, one module a group (runs: validate, run, report; tools: the designer tools; studio;
data: cards, replay, warm); what they share (how a run is played here, the tools' options) is
in common.py."""

from __future__ import annotations

import signal
import threading

import typer

from simcell import __version__

app = typer.Typer(
    help="simcell: Monte Carlo game-balance simulator for the board game Cytosis.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help printed as written: "[sweep] table" keeps its word
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"simcell {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """simcell: Monte Carlo game-balance simulator for the board game Cytosis."""
    if threading.current_thread() is threading.main_thread():
        # ended by SIGTERM (timeout, a job scheduler, a service manager) as by Ctrl-C: the
        # workers are ended and what finished is kept, resumable
        signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum, frame) -> None:
    raise KeyboardInterrupt


# the commands, in the order --help lists them
from simcell.cli import runs, tools, studio, data  # noqa: E402,F401
from simcell.cli.common import _plays  # noqa: E402,F401  (the studio's tests build plays with it)
