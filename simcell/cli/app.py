"""The `simcell` typer application and what every command runs under: --version, and SIGTERM
ended as Ctrl-C is (the workers ended, what finished kept, resumable)."""

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
