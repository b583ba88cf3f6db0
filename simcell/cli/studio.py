"""simcell studio: the local page and its HTTP API (docs/studio.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from simcell.cli.app import app
from simcell.cli.common import _SEED, _WORKERS, _call, _fail, _out


def _start(session) -> None:
    """Start the session, compiling the kernel first where it is not cached under `simcell run`'s
    spinner on stderr (one line where stderr is no terminal)."""
    import contextlib

    from rich.console import Console

    from simcell.runner.progress import compile_spinner
    from simcell.runner.warm import expected_seconds, needs_compile

    compiling = needs_compile(session.loops)
    with (contextlib.nullcontext() if compiling is False else
          compile_spinner(*expected_seconds(session.loops), compiling, console=Console(stderr=True),
                          say_when_not_terminal=True)):
        session.start()


@app.command()
def studio(
    config: Path = typer.Argument(..., help="Run config whose card set to edit."),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="Port to serve on."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: this machine "
                             "only; 0.0.0.0 lets other machines in, with no password, and "
                             "prints a warning). Requests to another host or port, or from "
                             "another site's page, are refused."),
    open_: bool = typer.Option(False, "--open", help="Open the page in the default browser."),
    games: int = typer.Option(20_000, "--games", "-n", min=100, help="Games of the baseline and of "
                              "each edit, on the same seed."),
    block: int = typer.Option(1_000, "--block", min=10, help="Games a block (the interval's unit; "
                              "results update as blocks finish)."),
    field: str | None = typer.Option(None, "--field", help="The config's field to play (default: "
                                     "its first)."),
    baseline: Path | None = typer.Option(None, "--baseline", help="A run directory of this config "
                                         "to pair with (its seed and blocks, its first --games "
                                         "games; nothing replayed) instead of playing the baseline."),
    players: int | None = typer.Option(None, "--players", "-p", min=2, max=5, help="Player count "
                                       "(default: the config's first)."),
    out: Path | None = _out("Folder for edits, exports and compare reports (default: "
                            "studio-CONFIG); nothing is written elsewhere."),
    seed: int | None = _SEED,
    workers: int | None = _WORKERS,
) -> None:
    """A local web page to edit card and rule values and see what moves: each edit plays the
    baseline's games in warm workers, and the paired differences, with their intervals, narrow
    on screen as the games finish.

    The page is a client of a JSON API a script can use too (docs/studio.md; an example script in
    docs/examples/studio_what_if.py): GET /api/setup (the editable values), POST /api/edit
    {"values": {KEY: TEXT}, "changed": KEY} -> {"generation"} or 400 {"key", "message"}, GET
    /api/results (progress and the paired figures), POST /api/export and /api/compare
    {"values": {...}}, GET /api/compare/N, GET /files/PATH. A POST must be JSON
    (Content-Type: application/json; else 415), and a request must name the served host and
    port and, if it has an Origin, come from the studio's own page (else 403)."""
    import socket
    import webbrowser

    from simcell import api
    from simcell.studio.guard import exposure_warning
    from simcell.studio.server import serve
    from simcell.studio.session import Session

    warning = exposure_warning(host, port)
    if warning is not None:
        typer.echo(warning, err=True)
    try:
        with socket.socket() as probe:
            probe.bind((host, port))
    except OSError as exc:
        _fail(f"cannot serve on {host}:{port} ({exc.strerror or exc}): give another --port")
    folder = out or Path(f"studio-{config.stem}")
    session = _call(api.checked, Session, config, folder, players=players, games=games, seed=seed,
                    block=block, workers=workers, field_name=field, baseline=baseline)
    typer.echo(f"studio: loading the kernel in {session.workers} worker(s), then the baseline "
               f"({session.games:,} games, {session.players} players, field {session.field.name}"
               f"{f', read from {baseline}' if baseline else ''})", err=True)
    _start(session)
    plays = api.plays(workers=workers, quiet=True)

    def ready(url: str) -> None:
        typer.echo(f"studio: {url}  (bound to {host}"
                   f"{'' if warning else ': this machine only'}; Ctrl-C stops it)")
        if open_:
            webbrowser.open(url)

    try:
        serve(session, plays, host=host, port=port, ready=ready)
    finally:
        session.close()
