"""The `simcell` command line: typer commands over the config, runner and reports layers; the
designer tools' loops over their runs are in tools/, each given `_plays` (how a run is played
here: progress bars, resume, one-line errors)."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import signal
import sys
import threading
from pathlib import Path
import typer

from simcell import __version__

app = typer.Typer(
    help="simcell: Monte Carlo game-balance simulator for the board game Cytosis.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help printed as written: "[sweep] table" keeps its word
)


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


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


class _ReportPreload:
    """The run's progress callback (the bar's, if any) that also imports the report's modules
    (pandas plotting, scipy.stats, matplotlib: ~1 s) in a thread while the workers play: after
    the run they took that second with a core idle. The thread starts when the first chunk is
    in, once the run's own imports are done, so the two threads never import a module at the
    same time; not with a Dask cluster, whose client threads may import at any time."""

    def __init__(self, bar, enabled: bool):
        self.bar, self.enabled = bar, enabled
        self.calls = 0
        self.thread: threading.Thread | None = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar:
            self.bar(done, total)
        self.calls += 1  # the first call comes before any chunk, the second after the first
        if self.enabled and self.calls == 2:
            self.thread = threading.Thread(target=self._load, daemon=True)
            self.thread.start()

    @staticmethod
    def _load() -> None:
        with contextlib.suppress(Exception):  # an import error shows where the report is built
            importlib.import_module("simcell.reports.build")

    def join(self) -> None:
        """Wait for the imports (the report forks a side process: no thread may be mid-import)."""
        if self.thread is not None:
            self.thread.join()


def _runner(config: Path, opts):
    """The Runner of a config, or the one-line error (exit status 2)."""
    from simcell.config.errors import ConfigError
    from simcell.runner.run import RunError, Runner

    try:
        return Runner(config, opts)
    except ConfigError as exc:
        _fail(str(exc))
    except (RunError, OSError) as exc:
        _fail(f"{config}: {exc}")


def _warm_kernel(loops: set[int], quiet: bool):
    """Compile (or load) the kernel's entry points for these game loops in this process, under
    a spinner with the elapsed and expected time unless quiet or already cached."""
    from simcell.runner.progress import compile_spinner
    from simcell.runner.warm import expected_seconds, needs_compile, warm

    compiling = needs_compile(loops)
    if quiet or compiling is False:
        return warm(loops)
    with compile_spinner(*expected_seconds(loops), compiling):
        return warm(loops)


class _Interrupts:
    """Notes a Ctrl-C while a run plays. numba turns a KeyboardInterrupt that arrives while it
    unboxes a compiled function's arguments into another exception (a TypeError from unboxing
    a user policy's function): a run that fails after a Ctrl-C ends as interrupted, never as a
    traceback. Python's own handler still raises the KeyboardInterrupt; an ignored SIGINT (a
    background job) stays ignored."""

    def __init__(self):
        self.seen = False
        self.previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if callable(previous):
                self.previous = previous
                signal.signal(signal.SIGINT, self._note)
        return self

    def _note(self, signum, frame):
        self.seen = True
        self.previous(signum, frame)

    def __exit__(self, *exc) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def _interrupted(config: Path, runner) -> None:
    target = runner.root or "DIR"
    typer.echo(f"\ninterrupted: finished chunks are kept; continue with "
               f"simcell run {config} --resume {target}", err=True)
    raise typer.Exit(code=130) from None


def _play(config: Path, opts, quiet: bool, report: bool = True, measured: list[Path] = ()):
    """Run a config (compiling first, with a progress bar), then write its report (unless
    `report` is false); one-line errors and Ctrl-C exits as `simcell run`. Returns (outcome,
    report folder or None)."""
    from simcell.policies.user import UserPolicyError
    from simcell.runner.run import RunDirError, RunError

    runner = _runner(config, opts)
    from simcell.runner.progress import progress_bar

    if not runner.dask:  # here, before any worker starts: the workers only load it
        warmed = _warm_kernel(runner.loops, quiet)
        if warmed.compiled and not quiet:
            typer.echo(f"compiled the game kernel in {warmed.total:.0f} s (cached for the next "
                       "runs)", err=True)
    elif not quiet:
        typer.echo("loading the game kernel on every worker of the cluster first (compiling it "
                   "once per host where it is not cached)", err=True)
    preload = None
    interrupts = _Interrupts()
    try:
        with interrupts, progress_bar(quiet) as bar:
            preload = runner.progress = _ReportPreload(bar, enabled=not runner.dask)
            outcome = runner.run()
    except KeyboardInterrupt:
        _interrupted(config, runner)
    except (RunError, RunDirError) as exc:
        _fail(str(exc))
        return
    except UserPolicyError as exc:
        _fail(f"{config}: {exc}")
        return
    except Exception:
        if interrupts.seen:
            _interrupted(config, runner)
        raise
    preload.join()
    if not report:
        return outcome, None
    return outcome, _report(outcome.root, measured)


def _report(root: Path, measured=()) -> Path:
    from simcell.reports.build import build_report

    try:
        return build_report(root, measured=list(measured))
    except KeyboardInterrupt:
        typer.echo(f"\ninterrupted while writing the report; the run is complete: rebuild the "
                   f"report with simcell report {root}", err=True)
        raise typer.Exit(code=130) from None


def _plays(*, players, workers, dask, force, quiet):
    """How a designer tool plays its runs (tools.Plays): each run resumed when its directory holds
    it already (an interrupted or repeated command replays nothing; the runner refuses another
    config), else played afresh, with the progress bar and one-line errors of `simcell run`."""
    from simcell.runner.run import RunOptions
    from simcell.tools import Plays

    def into(config: Path, root: Path, games, seed, report: bool = False, own_players: bool = False) -> Path:
        resume = root if (root / "run.json").is_file() and not force else None
        opts = RunOptions(games=games, seed=seed,
                          players=tuple(players) if players and not own_players else None,
                          out=None if resume else root, workers=workers, force=force, resume=resume,
                          dask=dask)
        outcome, _ = _play(config, opts, quiet, report=report)
        return outcome.root

    def say(text: str) -> None:
        if not quiet:
            typer.echo(text, err=True)

    return Plays(into, say, tuple(players) if players else None, workers=workers, dask=dask)


# the options every designer tool shares with `simcell run`
_SEED = typer.Option(None, "--seed", min=0, help="Seed (default: the config's).")
_PLAYERS = typer.Option(None, "--players", "-p", help="Player count(s).")
_WORKERS = typer.Option(None, "--workers", "-w", min=1, help="Local worker processes.")
_DASK = typer.Option(None, "--dask", help="Run on this Dask scheduler.")
_FORCE = typer.Option(False, "--force", help="Replace the runs.")
_QUIET = typer.Option(False, "--quiet", "-q", help="No progress bars.")


def _tool(run, *args, **kwargs) -> Path:
    """Run a designer tool; its bad input (config, runs that cannot be paired, a missing
    calibration) ends in one line and exit status 2."""
    from simcell.config.errors import ConfigError
    from simcell.reports.compare import CompareError
    from simcell.reports.data import ReportError
    from simcell.tools import ToolError

    from simcell.runner.backends import shared_pool
    from simcell.tools import Plays

    plays = next((a for a in args if isinstance(a, Plays)), None)
    try:
        # every run of the tool on one pool of workers, started once (none for a Dask cluster)
        with shared_pool(plays.workers) if plays is not None and not plays.dask else contextlib.nullcontext():
            return run(*args, **kwargs)
    except (ConfigError, CompareError, ReportError, ToolError, FileNotFoundError) as exc:
        _fail(str(exc))
        raise  # not reached: _fail exits


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

        typer.echo(summary_text(outcome.root), nl=False)
        playing = outcome.seconds - outcome.prepare_seconds
        rate = outcome.games_played / playing if playing > 0 else 0.0
        typer.echo(f"{outcome.games_played:,} games played in {playing:.1f} s "
                   f"({rate:,.0f} games/s); run directory: {outcome.root}")
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
    from simcell.runner.store import RunDirError

    try:
        folder = build_report(run_dir, out, measured=(measured or []) + ([ladder] if ladder else []))
    except (ReportError, RunDirError) as exc:
        _fail(str(exc))
        return
    typer.echo(f"report: {folder / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def compare(
    a: Path = typer.Argument(..., help="Run directory or config A (the baseline)."),
    b: Path = typer.Argument(..., help="Run directory or config B (the change)."),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Folder for the comparison (default: compare-A-B, or beside "
        "B's run directory); configs are run into OUT/a and OUT/b."),
    unpaired: bool = typer.Option(False, "--unpaired", help="Compare runs on different seeds "
                                  "(unpaired; the report says so)."),
    calibration: Path | None = typer.Option(None, "--calibration", help="A simcell calibrate "
                                            "folder: state differences in ATP too."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="With configs: games per "
                                     "field and player count (default: A's)."),
    seed: int | None = typer.Option(None, "--seed", min=0, help="With configs: the seed both run "
                                    "on (default: A's)."),
    players: list[int] | None = typer.Option(None, "--players", "-p", help="With configs: player "
                                             "count(s) instead of A's."),
    workers: int | None = _WORKERS,
    dask: str | None = typer.Option(None, "--dask", help="With configs: run on this Dask "
                                    "scheduler (tcp://HOST:8786)."),
    force: bool = typer.Option(False, "--force", help="Replace existing runs and comparison."),
    rungs: bool = typer.Option(True, "--rungs/--no-rungs", help="With two configs, play each run again "
                               "under the config's [report] rungs: every seat's and card type's change "
                               "marked as holding across skill or not."),
    quiet: bool = _QUIET,
) -> None:
    """What a change does: B against A, game g against game g, every figure side by side with
    the paired difference and its interval. A and B are run directories, or two configs (both
    then run on the same seed first; an interrupted pair continues where it stopped)."""
    from simcell.tools.compare import default_folder, run_compare

    folder = out or default_folder(a, b)
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_compare, a, b, folder, plays, games=games, seed=seed, unpaired=unpaired,
                    calibration=calibration, rungs=rungs)
    from simcell.reports.compare import terminal_summary

    typer.echo(terminal_summary(written))
    typer.echo(f"comparison: {written / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def sweep(
    config: Path = typer.Argument(..., help="Run config to vary."),
    set_: list[str] | None = typer.Option(
        None, "--set", help="KEY=V1,V2,... : a card, card type, event, goal, board or rule value "
        "and the values it takes (cards.\"Insulin\".atp=1,2,3,4; types.detox.atp=+0,+1,+2, every "
        "card of the type, a signed value relative to its own; board.goals.first_marker_hp=2,3; "
        "rules.turn_order=marker,rotate); several make a grid. Also: a [sweep] table."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder of the sweep (default: "
                                    "sweep-CONFIG)."),
    calibration: Path | None = typer.Option(None, "--calibration", help="A simcell calibrate "
                                            "folder: state differences in ATP too."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per variant, field "
                                     "and player count (default: the config's)."),
    seed: int | None = typer.Option(None, "--seed", min=0, help="The seed every variant plays "
                                    "(default: the config's)."),
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    holdout: bool = typer.Option(True, "--holdout/--no-holdout", help="Replay the variants either "
                                 "side of a zero crossing on fresh seeds to confirm it."),
    force: bool = typer.Option(False, "--force", help="Replace the sweep's runs."),
    rungs: bool = typer.Option(True, "--rungs/--no-rungs", help="Play the first and the last variant "
                               "again under the config's [report] rungs: the change from one to the "
                               "other marked as holding across skill or not."),
    quiet: bool = _QUIET,
) -> None:
    """Vary one value (or a grid) on the same games: one run directory per variant, then
    response curves with paired intervals, the slope per step and, for a card, the value at which
    its contrast against its type crosses zero. An interrupted sweep continues where it stopped."""
    from simcell.tools.sweep import run_sweep

    folder = out or Path(f"sweep-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_sweep, config, set_ or [], folder, plays, games=games, seed=seed,
                    calibration=calibration, holdout=holdout, rungs=rungs)
    typer.echo(f"sweep: {written / 'report.html'} (and report.md, tables/*.csv; each variant's "
               f"run directory under {folder / 'runs'}, readable by simcell report)")


@app.command()
def seats(
    config: Path = typer.Argument(..., help="Run config whose seats to explain."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: seats-CONFIG)."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per variant, field "
                                     "and player count (default: the config's)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    search: bool = typer.Option(True, "--search/--no-search", help="Search for a starting-ATP "
                                "ladder that makes seats fair."),
    trials: int = typer.Option(24, "--trials", min=2, help="Ladders the search screens."),
    screen_games: int | None = typer.Option(None, "--screen-games", min=100, help="Games per "
                                            "player count for each screened ladder (default: a "
                                            "tenth of --games, at least 2,000)."),
    confirm: int = typer.Option(3, "--confirm", min=1, help="Best ladders replayed on fresh seeds."),
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """Why seats differ: paired runs with each cause of seat advantage switched off (flat
    starting ATP, no grey flasks, the marker holder may not retake Laureates, rotating turn
    order, all together), then a search for the starting-ATP ladder that brings every seat
    within the band, its best ladders confirmed on fresh seeds."""
    from simcell.tools.seats import run_seats

    folder = out or Path(f"seats-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_seats, config, folder, plays, games=games, seed=seed, search=search,
                    trials=trials, screen_games=screen_games, confirm=confirm)
    typer.echo(f"seats: {written / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def calibrate(
    config: Path = typer.Argument(..., help="Run config to calibrate."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: calibrate-CONFIG)."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per run, field and "
                                     "player count (default: the config's)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """The measured ATP equivalent per player count: what +1 starting ATP for one player is worth
    in win share and HP (each seat in turn, paired with the config as it is, averaged). Give the
    folder to compare or sweep with --calibration to read effects in ATP."""
    from simcell.tools.calibrate import run_calibrate

    folder = out or Path(f"calibrate-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_calibrate, config, folder, plays, games=games, seed=seed)
    typer.echo(f"calibration: {written / 'report.html'} (and calibration.json)")


@app.command()
def probe(
    config: Path = typer.Argument(..., help="Run config whose first field's policy probes."),
    cards: str | None = typer.Option(None, "--cards", help="Cards to probe, comma-separated "
                                     "(default: every card a player completes)."),
    favour: float = typer.Option(3.0, "--favour", min=1.0, help="How many times its worth the "
                                 "probed card is to the probing player."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: probe-CONFIG)."),
    calibration: Path | None = typer.Option(None, "--calibration", help="A simcell calibrate "
                                            "folder: state the gains in ATP too."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per run (default: "
                                     "the config's, at most 100,000; one run per card and player "
                                     "count, and a baseline)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """What each card is worth to a player who goes for it: the config's policy made to
    prioritise the card in one seat (every seat in turn) against the unmodified field, paired with
    the unmodified policy there on the same games; cards ranked by the win share gained (owning)
    beside the strongest opponent's loss (denying), with the probe's completion rate."""
    from simcell.tools.probe import run_probe

    folder = out or Path(f"probe-{config.stem}")
    names = [c.strip() for c in cards.split(",") if c.strip()] if cards else None
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_probe, config, folder, plays, cards=names, games=games, seed=seed,
                    favour=favour, calibration=calibration)
    typer.echo(f"probe: {written / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def exploit(
    config: Path = typer.Argument(..., help="Run config whose first field's policy is deviated from."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: exploit-CONFIG)."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per run (default: "
                                     "the config's, at most 20,000; one run per deviation and "
                                     "player count, and a baseline)."),
    holdout_games: int | None = typer.Option(None, "--holdout-games", min=1, help="Games of the "
                                             "best deviation's fresh replay (default: twice --games)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """The field's exploitability: the most win share one player gains by deviating from the
    field's policy (each card type's weight, the goal and First Player Marker worths, each
    resource's worth, up and down) while the others keep it, every seat in turn, paired with the
    field on the same games; the best deviation replayed on fresh games. Name the folder as
    `exploit` in a run config's report table to quote it in the report's summary."""
    from simcell.tools.exploit import run_exploit

    folder = out or Path(f"exploit-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_exploit, config, folder, plays, games=games, seed=seed,
                    holdout_games=holdout_games)
    typer.echo(f"exploit: {written / 'report.html'} (and exploit.json, tables/*.csv)")
    from simcell.reports.exploit import exploit_sentences

    for line in exploit_sentences(written):
        typer.echo(line)


@app.command()
def fit(
    config: Path = typer.Argument(..., help="Run config whose first field's policy is fitted."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: fit-CONFIG)."),
    rounds: int | None = typer.Option(None, "--rounds", min=1, help="Most rounds per player count (default 8)."),
    trials: int | None = typer.Option(None, "--trials", min=0, help="Searched deviations a round (default 48)."),
    deals: int | None = typer.Option(None, "--deals", min=2, help="Deals of the screen (default 2,000; P games each)."),
    holdout_deals: int | None = typer.Option(None, "--holdout-deals", min=2,
                                             help="Fresh deals of each confirmed deviation (default 8,000)."),
    band: float | None = typer.Option(None, "--band", min=0.0, help="Fitted when no deviation gains "
                                      "more (pp, default 1)."),
    budget_minutes: float | None = typer.Option(None, "--budget-minutes", min=0.1, help="No new round "
                                                "at a player count after this long."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    quiet: bool = _QUIET,
) -> None:
    """Fit the field's worths by self-play: each round one player deviates from the field
    (simcell exploit's family and a CMA-ES search over every worth) in every seat, on the same
    deals; the best, played again on fresh deals, is the field's exploitability; beyond the band
    the field moves towards it. Writes fitted.toml, which a field plays with
    fitted = { POLICY = "fitted.toml" }, and a config playing it."""
    from simcell.reports.fit import FITTED_FILE, fit_sentences
    from simcell.runner.match import MatchPool
    from simcell.tools.fit import run_fit

    folder = out or Path(f"fit-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=None, force=False, quiet=quiet)
    with MatchPool(workers) as pool:
        plays = dataclasses.replace(plays, margins=pool.margins)
        written = _tool(run_fit, config, folder, plays, seed=seed, budget_minutes=budget_minutes,
                        rounds=rounds, trials=trials, deals=deals, holdout_deals=holdout_deals, band=band)
    typer.echo(f"fit: {written / FITTED_FILE} (and report.html, fit.json)")
    for line in fit_sentences(written):
        typer.echo(line)


@app.command()
def ladder(
    config: Path = typer.Argument(..., help="Run config whose game the bots play (its fields are not used)."),
    policies: str | None = typer.Option(None, "--policies", help="Policies to rate, comma-separated: "
                                        "built-in names, labelled variants (rollout#b32) or user "
                                        "policies file.py:function (default: random, greedy, planner, "
                                        "the archetypes, the rollout at 2 and 4 playouts (rollout#p2, "
                                        "rollout) and the oracle, which sees the hidden cards)."),
    param: list[str] | None = typer.Option(None, "--param", help="LABEL.KEY=VALUE, a labelled "
                                           "policy's parameter (rollout#b32.playouts=32); repeatable."),
    games: int | None = typer.Option(None, "--games", "-n", min=100, help="Games per field "
                                     "(default 2,000)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: ladder-CONFIG)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """How strong each bot is: at each player count, every pairing (one policy among copies of
    another, every seat in turn) and mixed pools of distinct policies on the same deals; each
    policy's Plackett–Luce strength from the finishing orders with bootstrap intervals, the head
    to head table, and which adjacent rungs separate."""
    from simcell.tools.skill import run_ladder

    folder = out or Path(f"ladder-{config.stem}")
    params: dict[str, dict[str, float]] = {}
    for text in param or []:
        key, sep, value = text.partition("=")
        label, dot, name = key.strip().rpartition(".")
        try:
            if not (sep and dot and label and name):
                raise ValueError
            params.setdefault(label, {})[name] = float(value)
        except ValueError:
            _fail(f"--param {text!r}: expected LABEL.KEY=NUMBER, e.g. rollout#b32.playouts=32")
            return
    chosen = [x.strip() for x in policies.split(",") if x.strip()] if policies else None
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_ladder, config, folder, plays, policies=chosen, params=params, games=games, seed=seed)
    typer.echo(f"ladder: {written / 'report.html'} (and ladder.json, tables/*.csv)")
    from simcell.reports.skill import ladder_sentences

    for line in ladder_sentences(written):
        typer.echo(line)


@app.command()
def tune(
    config: Path = typer.Argument(..., help="Run config whose card values to tune ([tune] table "
                                  "optional)."),
    cards: str | None = typer.Option(None, "--cards", help="Cards that may change, comma-separated: "
                                     "names, card types or all (default: [tune] cards, else all)."),
    fields: str | None = typer.Option(None, "--fields", help="Card fields that may change, "
                                      "preferred first (default: [tune] fields, else atp,hp)."),
    range_: int | None = typer.Option(None, "--range", min=1, help="Largest change of a value, in "
                                      "whole steps (default: [tune] range, else 2)."),
    screen_games: int | None = typer.Option(None, "--screen-games", min=1000, help="Games of the "
                                            "first round, doubled each round (default 50,000)."),
    rounds: int | None = typer.Option(None, "--rounds", min=1, help="Rounds of measuring and "
                                      "stepping (default 4)."),
    games: int | None = typer.Option(None, "--games", "-n", min=1000, help="Games of the holdout "
                                     "comparison (default: the config's)."),
    board: str | None = typer.Option(None, "--board", help="Board values searched for the seats, "
                                     "comma-separated keys (board.setup.starting_atp, "
                                     "board.goals.first_marker_hp ...; default: [tune] board, else none)."),
    rules: str | None = typer.Option(None, "--rules", help="Rule switches searched with the board "
                                     "values, comma-separated (turn_order, grey_per_player ...; default: "
                                     "[tune] rules, else none)."),
    board_trials: int | None = typer.Option(None, "--board-trials", min=1, help="Board and rule "
                                            "assignments tried (default 16)."),
    budget_minutes: float | None = typer.Option(None, "--budget-minutes", min=0.1, help="No further "
                                                "search stage after this long (the holdout still runs)."),
    budget_games: int | None = typer.Option(None, "--budget-games", min=1000, help="No further search "
                                            "stage after this many games."),
    types: bool | None = typer.Option(None, "--types/--no-types", help="Also step whole card types "
                                      "toward the type band, every card of a type by one whole "
                                      "step (default: [tune] types, else no)."),
    rungs: str | None = typer.Option(None, "--rungs", help="Further fields every run plays beside the "
                                     "config's, comma-separated heuristic rungs (planner, fitted, an "
                                     "archetype): each card steered by its worst field (default: [tune] rungs)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: tune-CONFIG)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """Propose card values that bring every card's contrast against its type within the band,
    fewest changed values first: each card out of band stepped by its measured response, round
    by round on more games (with --types, each card type's gap against the average card too, a
    whole type stepped together); then any board values and rule switches named searched for fair seats
    within the optional [tune.targets]; then the original and tuned sets compared on fresh seeds,
    every target's verdict. Writes tuned-cards.toml, tuned.toml (the config playing it), the
    changes and the comparison."""
    from simcell.config.tune import tune_space
    from simcell.tools.tune import run_tune

    folder = out or Path(f"tune-{config.stem}")

    def split(text):
        return [x.strip() for x in text.split(",") if x.strip()] if text else None

    space = _tool(tune_space, config, split(cards), split(fields), range_, screen_games, rounds, games,
                  split(board), board_trials, budget_games, budget_minutes, split(rules), types,
                  split(rungs))
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_tune, config, folder, plays, space, seed=seed)
    typer.echo(f"tune: {written / 'report.html'} (tuned-cards.toml, tuned.toml; the holdout "
               f"comparison in {written / 'compare'})")


@app.command()
def studio(
    config: Path = typer.Argument(..., help="Run config whose card set to edit."),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="Port to serve on."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: this machine "
                             "only; 0.0.0.0 lets other machines in, with no password)."),
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
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder for edits, exports and "
                                    "compare reports (default: studio-CONFIG); nothing is written "
                                    "elsewhere."),
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
    {"values": {...}}, GET /api/compare/N, GET /files/PATH."""
    import socket
    import webbrowser

    from simcell.studio.server import serve
    from simcell.studio.session import Session

    try:
        with socket.socket() as probe:
            probe.bind((host, port))
    except OSError as exc:
        _fail(f"cannot serve on {host}:{port} ({exc.strerror or exc}): give another --port")
    folder = out or Path(f"studio-{config.stem}")
    session = _tool(Session, config, folder, players=players, games=games, seed=seed, block=block,
                    workers=workers, field_name=field, baseline=baseline)
    typer.echo(f"studio: loading the kernel in {session.workers} worker(s), then the baseline "
               f"({session.games:,} games, {session.players} players, field {session.field.name}"
               f"{f', read from {baseline}' if baseline else ''})", err=True)
    session.start()
    plays = _plays(players=None, workers=workers, dask=None, force=False, quiet=True)

    def ready(url: str) -> None:
        typer.echo(f"studio: {url}  (bound to {host}"
                   f"{': this machine only' if host in ('127.0.0.1', 'localhost') else ''}; Ctrl-C stops it)")
        if open_:
            webbrowser.open(url)

    try:
        serve(session, plays, host=host, port=port, ready=ready)
    finally:
        session.close()


@app.command()
def cards(
    config: Path | None = typer.Argument(
        None, help="Run config whose card set to show (default: the shipped set)."
    ),
) -> None:
    """Show the resolved card set with overrides applied, each card's cost in placements and
    its HP per placement."""
    from rich.console import Console
    from rich.table import Table as RichTable

    from simcell.config.errors import ConfigError
    from simcell.config.load import load_default_game, load_run_config
    from simcell.config.summary import card_rows

    try:
        game = load_run_config(config).game if config is not None else load_default_game()
    except ConfigError as exc:
        _fail(str(exc))
        return
    shipped = {c.id: c for c in load_default_game().cards}
    rows = card_rows(game)
    table = RichTable(title=f"Cell Component cards  (content hash {game.content_hash[:16]})")
    for col in ("id", "name", "type", "atp", "protein", "carb", "lipid", "golgi", "hp", "bonus",
                "gain", "placements", "HP/placement"):
        table.add_column(col, justify="left" if col in ("name", "type", "golgi", "gain") else "right")
    for row in rows:
        ref = shipped.get(row["id"])

        def cell(field: str, text: str, ref=ref, row=row) -> str:
            changed = ref is None or getattr(ref, field) != row[field]
            return f"[bold yellow]{text}*[/]" if changed else text

        gain = ", ".join(f"{n} {r}" for r, n in zip(("mRNA", "Protein", "Carb", "Lipid", "ATP"),
                                                     row["gain"]) if n)
        pl = row["placements"]
        table.add_row(
            str(row["id"]), row["name"], row["type"],
            cell("atp", str(row["atp"])), cell("protein", str(row["protein"])),
            cell("carb", str(row["carb"])), cell("lipid", str(row["lipid"])),
            cell("golgi", row["golgi"] or "-"), cell("hp", str(row["hp"])),
            cell("bonus_per_match", str(row["bonus_per_match"])), cell("gain", gain or "-"),
            "-" if pl is None else str(pl),
            "-" if pl is None else f"{row['hp_per_placement']:.2f}",
        )
    console = Console(width=max(140, Console().width))
    console.print(table)
    console.print("* differs from the shipped set.  placements: fewest flask placements to buy and "
                  "complete the card from nothing at the board's best rates.")


@app.command()
def replay(
    config: Path = typer.Argument(..., help="Run config whose game to replay."),
    game: int = typer.Option(..., "--game", "-g", min=0, help="Game index N (0-based)."),
    players: int | None = typer.Option(
        None, "--players", "-p", help="Player count (default: the config's first)."
    ),
    field: str | None = typer.Option(None, "--field", help="Policy field (default: the first)."),
) -> None:
    """Print a human-readable log of game N, checked action by action by the referee: setup,
    every turn (who placed where, what they gained, paid and completed), each Phase 2 and the
    score by source."""
    from simcell.config.errors import ConfigError
    from simcell.config.load import load_run_config

    try:
        rc = load_run_config(config)
    except ConfigError as exc:
        _fail(str(exc))
        return
    if players is None:
        players = rc.players[0]
    elif players not in rc.players:
        _fail(f"{config}: --players {players}: the run plays {', '.join(map(str, rc.players))}")
        return
    chosen = rc.fields[0] if field is None else next((f for f in rc.fields if f.name == field), None)
    if chosen is None:
        _fail(f"{config}: --field {field}: no such field; fields: {', '.join(f.name for f in rc.fields)}")
        return
    from simcell.policies.user import UserPolicyError
    from simcell.runner.replay import replay_log

    try:
        text = replay_log(rc.game, players, rc.seed, game, chosen, base=config.parent)
    except UserPolicyError as exc:
        _fail(f"{config}: {exc}")
        return
    typer.echo(text, nl=False)


@app.command("warm")
def warm_command(
    config: Path | None = typer.Argument(
        None, help="Run config whose game loops to compile (default: every game loop)."),
) -> None:
    """Compile the game kernel into the cache ahead of any run (for images and clusters): the
    game loops a config's fields play, or all three (random, policies, search), and the
    runner's record sums. Prints what was compiled or loaded, and where the cache is."""
    from simcell.kernel.jit import cache_base
    from simcell.runner.run import RunOptions
    from simcell.runner.warm import LOOP_NAMES

    loops = set(LOOP_NAMES) if config is None else _runner(config, RunOptions()).loops
    warmed = _warm_kernel(loops, quiet=False)
    for name, seconds in warmed.seconds.items():
        how = "compiled" if name in warmed.compiled else "loaded"
        typer.echo(f"{name:10s} {how} in {seconds:.1f} s")
    typer.echo(f"cache: {cache_base()}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
