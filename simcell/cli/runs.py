"""The commands that play or read one run: validate, run (with its rungs), report."""

from __future__ import annotations

import contextlib
from pathlib import Path

import typer

from simcell.cli import app
from simcell.cli.common import _fail, _play, _report, _plays, _tool


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
    games: int | None = typer.Option(
        None, "--games", "-n", min=1, help="Games per field and player count (default: the config's)."
    ),
    seed: int | None = typer.Option(None, "--seed", min=0, help="Master seed (default: the config's)."),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Run directory to write (default: runs/CONFIG-YYYYmmdd-HHMMSS)."
    ),
    workers: int | None = typer.Option(
        None, "--workers", "-w", min=1, help="Local worker processes (default: every core)."
    ),
    players: list[int] | None = typer.Option(
        None, "--players", "-p", help="Player count(s) to play instead of the config's; repeat "
        "for several (-p 3 -p 5)."
    ),
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
                                       "game: the report's summary names the field's rung on it."),
    rungs: bool = typer.Option(True, "--rungs/--no-rungs", help="Check the headline verdicts "
                               "under each rung of [report] rungs (default: planner, fitted, "
                               "rollout) on the run's first deals: the report's verdicts across skill."),
) -> None:
    """Play the config's games on every core (or a Dask cluster) into a run directory:
    resolved config, records and block aggregates as Parquet, run metadata; then play its first
    deals again under each rung (the verdicts across skill) and summarise.
    Ctrl-C keeps the finished chunks: continue with --resume DIR."""
    from simcell.runner.run import RunOptions

    if resume is not None and (out is not None or force):
        _fail("--resume continues a directory; it takes no --out or --force")
        return
    if ladder is not None and not (ladder / "ladder.json").is_file():
        _fail(f"--ladder {ladder}: not a simcell ladder folder (no ladder.json)")  # before any game
        return
    opts = RunOptions(games=games, seed=seed, players=tuple(players) if players else None, out=out,
                      workers=workers, force=force, resume=resume, dask=dask,
                      chunk_games=chunk_games)
    from simcell.runner.backends import shared_pool

    with shared_pool(workers) if not dask else contextlib.nullcontext():
        outcome, _ = _play(config, opts, quiet, report=False)
        if rungs:
            from simcell.tools.rungs import run_rungs

            plays = _plays(players=players, workers=workers, dask=dask, force=False, quiet=quiet)
            _tool(run_rungs, config, outcome.root, plays, games=games, seed=seed)
    folder = _report(outcome.root, [ladder] if ladder else [])
    if not quiet:
        from simcell.reports.summary import summary_text
        from simcell.runner.disk import folder_bytes, human

        typer.echo(summary_text(outcome.root), nl=False)
        playing = outcome.seconds - outcome.prepare_seconds
        rate = outcome.games_played / playing if playing > 0 else 0.0
        typer.echo(f"{outcome.games_played:,} games played in {playing:.1f} s "
                   f"({rate:,.0f} games/s); run directory: {outcome.root} "
                   f"({human(folder_bytes(outcome.root))})")
        typer.echo(f"report: {folder / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def report(
    run_dir: Path = typer.Argument(..., help="A complete run directory (from simcell run)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Report folder (default: RUN_DIR/report)."),
    measured: list[Path] | None = typer.Option(None, "--measured", help="A simcell seats, sweep, "
                                               "calibrate or probe folder of this game, repeatable: "
                                               "the summary's changes quote what it measured (folders "
                                               "inside RUN_DIR are read too)."),
    ladder: Path | None = typer.Option(None, "--ladder", help="A simcell ladder folder of this game: "
                                       "the summary names the field's rung on it."),
) -> None:
    """Rebuild the balance report of a run directory from the directory alone: report.html
    (self-contained), report.md with PNG figures beside it, and every table as CSV."""
    from simcell.reports.build import build_report
    from simcell.reports.data import ReportError
    from simcell.runner.disk import pruned_note
    from simcell.runner.store import RunDirError

    if (note := pruned_note(run_dir)) is not None:
        _fail(note)  # its records are gone: say so, not that a folder is missing
        return
    try:
        folder = build_report(run_dir, out, measured=(measured or []) + ([ladder] if ladder else []))
    except (ReportError, RunDirError) as exc:
        _fail(str(exc))
        return
    typer.echo(f"report: {folder / 'report.html'} (and report.md, tables/*.csv)")
