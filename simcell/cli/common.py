"""What every command shares: how a run is played from the terminal (`_play`: compiling under a
spinner, the progress bar, Ctrl-C and SIGTERM as an interrupted run that resumes, one-line errors),
how a designer tool plays its runs (`_plays`, `_tool`: one shared pool of workers for all of
them), and the options every tool takes, declared once."""

from __future__ import annotations

import contextlib
import importlib
import signal
import threading
from pathlib import Path

import typer

def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


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
