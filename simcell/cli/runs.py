"""The commands that play or read one run: validate, run (with its rungs), report."""

from __future__ import annotations

from pathlib import Path

import typer

from simcell.cli.app import app
from simcell.cli.common import (
    _NO_RUNGS,
    _PLAYERS,
    _SEED,
    _WORKERS,
    _call,
    _fail,
    _games,
    _out,
    _rungs,
    _rungs_option,
)
from simcell.vocabulary import LADDER_FILE


@app.command()
def validate(config: Path = typer.Argument(..., help="Run config (TOML) to check.")) -> None:
    """Load and check a run config; print a summary of the resolved game, or the error."""
    from simcell.config.errors import ConfigError
    from simcell.config.load import load_default_game, load_run_config
    from simcell.config.summary import describe_run_config

    try:
        rc = load_run_config(config)
    except ConfigError as exc:
        _fail(str(exc))
        return
    out = describe_run_config(rc, load_default_game())
    typer.echo("\n".join(out))
    typer.echo("ok")


@app.command("run")
def run_command(
    config: Path = typer.Argument(..., help="Run config (TOML)."),
    games: int | None = _games("Games per field and player count (default: the config's)."),
    seed: int | None = _SEED,
    out: Path | None = _out("Run directory to write (default: runs/CONFIG-YYYYmmdd-HHMMSS)."),
    workers: int | None = _WORKERS,
    players: list[int] | None = _PLAYERS,
    force: bool = typer.Option(False, "--force", help="Replace an existing run directory."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no summary."),
    resume: Path | None = typer.Option(
        None, "--resume", help="Continue the interrupted run in this directory (same config)."
    ),
    dask: str | None = typer.Option(
        None, "--dask", help="Run on an existing Dask cluster: its scheduler address "
        "(tcp://HOST:8786). Default: the config's [dask] scheduler, else local processes."
    ),
    chunk_games: int | None = typer.Option(
        None, "--chunk-games", min=1, help="Games per work unit (default: planned; records do "
        "not depend on it)."
    ),
    ladder: Path | None = typer.Option(None, "--ladder", help="A simcell ladder folder of this "
                                       "game: the report's summary names the field's place on "
                                       "the bot ladder."),
    rungs: str | None = _rungs_option("Rungs to check the headline verdicts under, comma-separated "
                                      "(default: the config's [report] rungs: planner, fitted, "
                                      "rollout), on the run's first deals: the report's verdicts "
                                      "across skill."),
    no_rungs: bool = _NO_RUNGS,
) -> None:
    """Play the config's games on every core (or a Dask cluster) into a run directory:
    resolved config, records and block aggregates as Parquet, run metadata; then play its first
    deals again under each rung (the verdicts across skill) and summarise.
    Ctrl-C keeps the finished chunks: continue with --resume DIR."""
    from simcell import api

    if ladder is not None and not (ladder / LADDER_FILE).is_file():
        _fail(f"--ladder {ladder}: not a simcell ladder folder (no {LADDER_FILE})")  # before any game
    if resume is not None and (out is not None or force):
        _fail("--resume continues a directory; it takes no --out or --force")
    played = _call(api.play, config, out=out, games=games, seed=seed, players=players,
                   workers=workers, dask=dask, force=force, resume=resume, chunk_games=chunk_games,
                   rungs=_rungs(rungs, no_rungs), measured=[ladder] if ladder else [], quiet=quiet)
    if not quiet:
        from simcell.reports.summary import summary_text
        from simcell.runner.disk import folder_bytes, human

        typer.echo(summary_text(played.root), nl=False)
        typer.echo(f"{played.games_played:,} games played in "
                   f"{played.seconds - played.prepare_seconds:.1f} s "
                   f"({played.games_per_second:,.0f} games/s); run directory: {played.root} "
                   f"({human(folder_bytes(played.root))})")
        typer.echo(f"report: {played.report / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def report(
    run_dir: Path = typer.Argument(..., help="A complete run directory (from simcell run)."),
    out: Path | None = _out("Report folder (default: RUN_DIR/report)."),
    measured: list[Path] | None = typer.Option(None, "--measured", help="A simcell seats, sweep, "
                                               "calibrate or probe folder of this game, repeatable: "
                                               "the summary's changes quote what it measured (folders "
                                               "inside RUN_DIR are read too)."),
    ladder: Path | None = typer.Option(None, "--ladder", help="A simcell ladder folder of this game: "
                                       "the summary names the field's place on the bot ladder."),
) -> None:
    """Rebuild the balance report of a run directory from the directory alone: report.html
    (self-contained), report.md with PNG figures beside it, and every table as CSV."""
    from simcell import api

    folder = _call(api.report, run_dir, out, (measured or []) + ([ladder] if ladder else []))
    typer.echo(f"report: {folder / 'report.html'} (and report.md, tables/*.csv)")
