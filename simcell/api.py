"""simcell's Python front door: play a config into a run directory, read a run's records and
tables as DataFrames, build its report, compare two configs, sweep a value and run every other
designer tool. These are the functions the commands call; the command line adds only the
terminal (one-line errors, the resume line after Ctrl-C or SIGTERM, printed summaries).

    from simcell import api
    played = api.play("configs/5p.toml", games=20_000, rungs=False)
    run = api.load(played.root)
    run.players().groupby("seat")["win_share"].mean()
    folder = api.compare("configs/5p.toml", "my-change.toml", games=50_000)
    api.tables(folder)["headline"]

Bad input (a config error, runs that cannot be paired, a missing folder) raises `SimcellError`,
whose message is one line. Ctrl-C keeps what finished: `Interrupted` says where to resume."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pandas as pd
import pyarrow.parquet as pq

from simcell.vocabulary import REPORT_FOLDER, RUN_FILE, TABLES_FOLDER

T = TypeVar("T")


class SimcellError(Exception):
    """Bad input to simcell, said in one line (the command line prints it, exit status 2)."""


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (or SIGTERM at the command line): its finished chunks are kept in
    `root`, and playing the same config with resume=root continues it. Stopped `during` the
    report, the run is complete and `report(root)` rebuilds it."""

    def __init__(self, config: Path, root: Path | None, during: str = "run"):
        super().__init__(f"interrupted: continue with resume={root}" if during == "run" else
                         f"interrupted while writing the report: rebuild it with report({root})")
        self.config, self.root, self.during = Path(config), root, during


@dataclass(frozen=True)
class Played:
    """What `play` did: the run directory, its report folder (None without a report), the games
    played by this call and their wall time, and the seconds spent compiling or loading the
    kernel for the workers."""

    root: Path
    report: Path | None
    games_played: int
    seconds: float
    prepare_seconds: float

    @property
    def games_per_second(self) -> float:
        playing = self.seconds - self.prepare_seconds
        return self.games_played / playing if playing > 0 else 0.0


# -- errors: every kind of bad input a caller can give, as one line --------------------------
def _input_errors() -> tuple[type[Exception], ...]:
    from simcell.config.errors import ConfigError
    from simcell.reports.changes import CompareError
    from simcell.reports.data import ReportError
    from simcell.runner.store import RunDirError
    from simcell.tools import ToolError

    return ConfigError, CompareError, ReportError, RunDirError, ToolError, FileNotFoundError


def checked(fn: Callable[..., T], *args, **kwargs) -> T:
    """fn(*args, **kwargs), its bad input (a config error, a missing folder, runs that cannot be
    paired) raised as a one-line SimcellError."""
    with _one_line():
        return fn(*args, **kwargs)


@contextlib.contextmanager
def _one_line(prefix: str = "") -> Iterator[None]:
    try:
        yield
    except SimcellError:
        raise
    except _input_errors() as exc:
        raise SimcellError(f"{prefix}{exc}") from exc


# -- how one run is played ----------------------------------------------------------------------
class ReportPreload:
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


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def runner(config: Path, opts):
    """The Runner of a config and its run options (runner/run.py), or its one-line error."""
    from simcell.config.errors import ConfigError
    from simcell.runner.run import RunError, Runner

    try:
        return Runner(Path(config), opts)
    except ConfigError as exc:
        raise SimcellError(str(exc)) from exc
    except (RunError, OSError) as exc:
        raise SimcellError(f"{config}: {exc}") from exc


def warm_kernel(loops: set[int], quiet: bool = True):
    """Compile (or load) the kernel's entry points for these game loops in this process, under
    a spinner with the elapsed and expected time unless quiet or already cached."""
    from simcell.runner.progress import compile_spinner
    from simcell.runner.warm import expected_seconds, needs_compile, warm

    compiling = needs_compile(loops)
    if quiet or compiling is False:
        return warm(loops)
    with compile_spinner(*expected_seconds(loops), compiling):
        return warm(loops)


def _play_one(config: Path, opts, quiet: bool):
    """Play a config's run (compiling first, with a progress bar unless quiet); returns the
    runner's outcome."""
    from simcell.policies.user import UserPolicyError
    from simcell.runner.progress import progress_bar
    from simcell.runner.store import RunDirError
    from simcell.runner.run import RunError

    playing = runner(config, opts)
    if not playing.dask:  # here, before any worker starts: the workers only load it
        warmed = warm_kernel(playing.loops, quiet)
        if warmed.compiled and not quiet:
            _say(f"compiled the game kernel in {warmed.total:.0f} s (cached for the next runs)")
    elif not quiet:
        _say("loading the game kernel on every worker of the cluster first (compiling it once "
             "per host where it is not cached)")
    preload = None
    interrupts = _Interrupts()
    try:
        with interrupts, progress_bar(quiet) as bar:
            preload = playing.progress = ReportPreload(bar, enabled=not playing.dask)
            outcome = playing.run()
    except KeyboardInterrupt:
        raise Interrupted(config, playing.root) from None
    except (RunError, RunDirError) as exc:
        raise SimcellError(str(exc)) from exc
    except UserPolicyError as exc:
        raise SimcellError(f"{config}: {exc}") from exc
    except Exception:
        if interrupts.seen:
            raise Interrupted(config, playing.root) from None
        raise
    preload.join()
    return outcome


@contextlib.contextmanager
def workers_for(workers: int | None, dask: str | None = None) -> Iterator[None]:
    """One pool of local worker processes for every run played inside the block (none for a
    Dask cluster): a designer tool's runs, or a run and its rungs, start workers once."""
    from simcell.runner.backends import shared_pool

    with shared_pool(workers) if not dask else contextlib.nullcontext():
        yield


def plays(*, players: Sequence[int] | None = None, workers: int | None = None,
          dask: str | None = None, force: bool = False, quiet: bool = True):
    """How a designer tool plays its runs (tools.Plays): each run resumed when its directory holds
    it already (an interrupted or repeated tool replays nothing; the runner refuses another
    config), else played afresh, with progress unless quiet."""
    from simcell.runner.run import RunOptions
    from simcell.tools import Plays

    def into(config: Path, root: Path, games, seed, report: bool = False,
             own_players: bool = False) -> Path:
        resume = root if (root / RUN_FILE).is_file() and not force else None
        opts = RunOptions(games=games, seed=seed,
                          players=tuple(players) if players and not own_players else None,
                          out=None if resume else root, workers=workers, force=force, resume=resume,
                          dask=dask)
        outcome = _play_one(config, opts, quiet)
        if report:
            _report(outcome.root)
        return outcome.root

    def say(text: str) -> None:
        if not quiet:
            _say(text)

    return Plays(into, say, tuple(players) if players else None, workers=workers, dask=dask)


def _report(root: Path, measured: Sequence[Path] = (), out: Path | None = None,
            config: Path | None = None) -> Path:
    from simcell.reports.build import build_report

    try:
        with _one_line():
            return build_report(root, out, measured=list(measured))
    except KeyboardInterrupt:
        raise Interrupted(config or root, root, during="report") from None


def play(config: str | Path, *, out: str | Path | None = None, games: int | None = None,
         seed: int | None = None, players: Sequence[int] | None = None,
         workers: int | None = None, dask: str | None = None, force: bool = False,
         resume: str | Path | None = None, chunk_games: int | None = None,
         rungs: bool | Sequence[str] = True,
         report: bool = True, measured: Sequence[str | Path] = (), quiet: bool = False) -> Played:
    """Play a config's games into a run directory (default runs/CONFIG-YYYYmmdd-HHMMSS): records
    and block aggregates as Parquet, run metadata; then its first deals again with one player who
    never takes the Laureates (`[report] laureates_games`, the Goals section's worth of a visit)
    and under each rung
    (the report's verdicts across skill: `rungs` True plays the config's [report] rungs, a list
    names others, False none); then the balance
    report (report.html, report.md, tables/*.csv) unless `report` is false. `measured` names
    designer-tool folders whose findings the report's summary quotes. `resume` continues an
    interrupted run. On every core unless `workers`; on a Dask cluster with `dask`."""
    from simcell.runner.run import RunOptions

    config = Path(config)
    if resume is not None and (out is not None or force):
        raise SimcellError("resume continues a directory; it takes no out or force")
    _check_rungs(rungs)
    opts = RunOptions(games=games, seed=seed, players=tuple(players) if players else None,
                      out=Path(out) if out is not None else None, workers=workers, force=force,
                      resume=Path(resume) if resume is not None else None, dask=dask,
                      chunk_games=chunk_games)
    with workers_for(workers, dask):
        outcome = _play_one(config, opts, quiet)
        from simcell.tools.laureates import run_laureates

        with _one_line():
            run_laureates(config, outcome.root, plays(players=players, workers=workers, dask=dask,
                                                      quiet=quiet), games=games, seed=seed)
        if rungs:
            from simcell.tools.rungs import run_rungs

            with _one_line():
                run_rungs(config, outcome.root, plays(players=players, workers=workers, dask=dask,
                                                      quiet=quiet), games=games, seed=seed,
                          rungs=None if rungs is True else list(rungs))
    folder = _report(outcome.root, [Path(m) for m in measured], config=config) if report else None
    return Played(outcome.root, folder, outcome.games_played, outcome.seconds,
                  outcome.prepare_seconds)


def _check_rungs(rungs: bool | Sequence[str]) -> None:
    """Rungs named instead of the config's are checked before any game is played."""
    if not isinstance(rungs, bool):
        from simcell.config.rungs import named_rungs

        with _one_line():
            named_rungs(list(rungs))


def report(run_dir: str | Path, out: str | Path | None = None,
           measured: Sequence[str | Path] = ()) -> Path:
    """Build (or rebuild) the balance report of a complete run directory from the directory
    alone; returns the report folder (default RUN_DIR/report)."""
    from simcell.runner.disk import pruned_note

    if (note := pruned_note(Path(run_dir))) is not None:
        raise SimcellError(note)  # its records are gone: say so, not that a folder is missing
    return _report(Path(run_dir), [Path(m) for m in measured], Path(out) if out else None)


# -- reading a run ------------------------------------------------------------------------------
class Run:
    """A complete run directory as DataFrames: its records one segment (player count and field)
    at a time, its block aggregates, its report's tables."""

    def __init__(self, root: str | Path):
        from simcell.reports.data import RunData

        with _one_line():
            self.data = RunData(Path(root))
        self.root = self.data.root
        self.meta, self.resolved = self.data.meta, self.data.resolved

    @property
    def segments(self) -> pd.DataFrame:
        """One row per segment: players, field, field name, games, blocks, policies."""
        return pd.DataFrame([dataclasses.asdict(s) for s in self.data.segments])

    def _segment(self, players: int | None, field: int):
        segs = [s for s in self.data.segments if (players is None or s.players == players)
                and s.field == field]
        if not segs:
            raise SimcellError(f"{self.root}: no segment of {players} players and field {field} "
                               f"(it has {', '.join(s.label for s in self.data.segments)})")
        return segs[0]

    def _records(self, table: str, players: int | None, field: int,
                 columns: Sequence[str] | None) -> pd.DataFrame:
        seg = self._segment(players, field)
        with _one_line():
            return self.data.records(table, seg, list(columns) if columns else self._columns(table, seg))

    def _columns(self, table: str, seg) -> list[str]:
        folder = self.root / table / f"players={seg.players}" / f"field={seg.field}"
        first = next(folder.glob("part-*.parquet"), None)
        return pq.read_schema(first).names if first is not None else []

    def players(self, players: int | None = None, field: int = 0,
                columns: Sequence[str] | None = None) -> pd.DataFrame:
        """One row per (game, player) of a segment (default: the first player count, the first
        field); docs/runs.md lists the columns."""
        return self._records("players", players, field, columns)

    def games(self, players: int | None = None, field: int = 0,
              columns: Sequence[str] | None = None) -> pd.DataFrame:
        """One row per game of a segment (default: the first player count, the first field)."""
        return self._records("games", players, field, columns)

    def aggregate(self, name: str) -> pd.DataFrame:
        """A block aggregate (blocks/NAME.parquet: offered, bought, seat, flows, ...)."""
        with _one_line():
            return self.data.blocks(name)

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables of the run's report (build it first with `report`)."""
        return tables(self.root / REPORT_FOLDER)


def load(run_dir: str | Path) -> Run:
    """A complete run directory, read as DataFrames (`Run`)."""
    return Run(run_dir)


def tables(folder: str | Path) -> dict[str, pd.DataFrame]:
    """Every table of a report folder (a run's report, or a designer tool's folder) by name, as
    its tables/*.csv hold it."""
    folder = Path(folder)
    where = folder / TABLES_FOLDER
    if not where.is_dir() and (folder / REPORT_FOLDER / TABLES_FOLDER).is_dir():
        where = folder / REPORT_FOLDER / TABLES_FOLDER
    if not where.is_dir():
        raise SimcellError(f"{folder}: no tables/ folder (not a report or tool folder)")
    return {csv.stem: pd.read_csv(csv) for csv in sorted(where.glob("*.csv"))}


# -- the designer tools -------------------------------------------------------------------------
def _tool(run: Callable[..., Path], *, players=None, workers=None, dask=None, force=False,
          quiet=True) -> Path:
    """Run a designer tool's loop, `run(plays)`, on one shared pool of workers; its bad input
    ends in one line."""
    p = plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    with _one_line(), workers_for(workers, dask):
        return run(p)


def _folder(out, default: str) -> Path:
    return Path(out) if out is not None else Path(default)


def compare(a: str | Path, b: str | Path, out: str | Path | None = None, *,
            unpaired: bool = False, calibration: str | Path | None = None, rungs: bool = True,
            games: int | None = None, seed: int | None = None, players: Sequence[int] | None = None,
            workers: int | None = None, dask: str | None = None, force: bool = False,
            quiet: bool = False) -> Path:
    """What a change does: B against A game by game. A and B are run directories, or two configs
    played on the same seed first (into OUT/a and OUT/b, then under the rungs unless `rungs` is
    false). Returns the comparison folder (default compare-A-B)."""
    from simcell.tools.compare import default_folder, run_compare

    a, b = Path(a), Path(b)
    _check_rungs(rungs)
    folder = Path(out) if out is not None else default_folder(a, b)
    return _tool(lambda p: run_compare(a, b, folder, p, games=games, seed=seed, unpaired=unpaired,
                                       rungs=rungs,
                                       calibration=Path(calibration) if calibration else None),
                 players=players, workers=workers, dask=dask, force=force, quiet=quiet)


def sweep(config: str | Path, settings: Sequence[str] = (), out: str | Path | None = None, *,
          calibration: str | Path | None = None, holdout: bool = True, rungs: bool = True,
          games: int | None = None, seed: int | None = None, players: Sequence[int] | None = None,
          workers: int | None = None, dask: str | None = None, force: bool = False,
          quiet: bool = False) -> Path:
    """Vary one value (or a grid: several `settings`, each "KEY=V1,V2,...", or the config's
    [sweep] table) on the same games; response curves and zero crossings confirmed on fresh
    seeds. Returns the sweep folder (default sweep-CONFIG)."""
    from simcell.tools.sweep import run_sweep

    config = Path(config)
    _check_rungs(rungs)
    folder = _folder(out, f"sweep-{config.stem}")
    return _tool(lambda p: run_sweep(config, list(settings), folder, p, games=games, seed=seed,
                                     calibration=Path(calibration) if calibration else None,
                                     holdout=holdout, rungs=rungs),
                 players=players, workers=workers, dask=dask, force=force, quiet=quiet)


def seats(config: str | Path, out: str | Path | None = None, *, search: bool = True,
          trials: int = 24, screen_games: int | None = None, confirm: int = 3,
          games: int | None = None, seed: int | None = None, players: Sequence[int] | None = None,
          workers: int | None = None, dask: str | None = None, force: bool = False,
          quiet: bool = False) -> Path:
    """Why seats differ: each cause switched off on the same games, then a search for the
    starting-ATP schedule that makes seats fair. Returns the folder (default seats-CONFIG)."""
    from simcell.tools.seats import run_seats

    config = Path(config)
    folder = _folder(out, f"seats-{config.stem}")
    return _tool(lambda p: run_seats(config, folder, p, games=games, seed=seed, search=search,
                                     trials=trials, screen_games=screen_games, confirm=confirm),
                 players=players, workers=workers, dask=dask, force=force, quiet=quiet)


def calibrate(config: str | Path, out: str | Path | None = None, *, games: int | None = None,
              seed: int | None = None, players: Sequence[int] | None = None,
              workers: int | None = None, dask: str | None = None, force: bool = False,
              quiet: bool = False) -> Path:
    """What one more starting ATP is worth at each player count. Returns the folder (default
    calibrate-CONFIG), which compare, sweep and probe take as `calibration`."""
    from simcell.tools.calibrate import run_calibrate

    config = Path(config)
    folder = _folder(out, f"calibrate-{config.stem}")
    return _tool(lambda p: run_calibrate(config, folder, p, games=games, seed=seed),
                 players=players, workers=workers, dask=dask, force=force, quiet=quiet)


def probe(config: str | Path, out: str | Path | None = None, *,
          cards: Sequence[str] | None = None, favour: float = 3.0,
          calibration: str | Path | None = None, games: int | None = None,
          seed: int | None = None, players: Sequence[int] | None = None,
          workers: int | None = None, dask: str | None = None, force: bool = False,
          quiet: bool = False) -> Path:
    """What each card is worth to a player who goes for it. Returns the folder (default
    probe-CONFIG)."""
    from simcell.tools.probe import run_probe

    config = Path(config)
    folder = _folder(out, f"probe-{config.stem}")
    return _tool(lambda p: run_probe(config, folder, p, cards=list(cards) if cards else None,
                                     games=games, seed=seed, favour=favour,
                                     calibration=Path(calibration) if calibration else None),
                 players=players, workers=workers, dask=dask, force=force, quiet=quiet)


def exploit(config: str | Path, out: str | Path | None = None, *,
            holdout_games: int | None = None, games: int | None = None, seed: int | None = None,
            players: Sequence[int] | None = None, workers: int | None = None,
            dask: str | None = None, force: bool = False, quiet: bool = False) -> Path:
    """The field's exploitability: the most one player gains by deviating from the field's
    worths, confirmed on fresh games. Returns the folder (default exploit-CONFIG)."""
    from simcell.tools.exploit import run_exploit

    config = Path(config)
    folder = _folder(out, f"exploit-{config.stem}")
    return _tool(lambda p: run_exploit(config, folder, p, games=games, seed=seed,
                                       holdout_games=holdout_games),
                 players=players, workers=workers, dask=dask, force=force, quiet=quiet)


def fit(config: str | Path, out: str | Path | None = None, *, rounds: int | None = None,
        trials: int | None = None, deals: int | None = None, holdout_deals: int | None = None,
        band: float | None = None, budget_minutes: float | None = None, seed: int | None = None,
        players: Sequence[int] | None = None, workers: int | None = None,
        quiet: bool = False) -> Path:
    """Fit the field's worths by self-play until no deviation gains beyond the band; writes
    fitted.toml. Returns the folder (default fit-CONFIG)."""
    from simcell.runner.match import MatchPool
    from simcell.tools.fit import run_fit

    config = Path(config)
    folder = _folder(out, f"fit-{config.stem}")
    p = plays(players=players, workers=workers, quiet=quiet)
    with MatchPool(workers) as pool, _one_line(), workers_for(workers):
        return run_fit(config, folder, dataclasses.replace(p, margins=pool.margins), seed=seed,
                       budget_minutes=budget_minutes, rounds=rounds, trials=trials, deals=deals,
                       holdout_deals=holdout_deals, band=band)


def ladder(config: str | Path, out: str | Path | None = None, *,
           policies: Sequence[str] | None = None, params: dict[str, dict[str, float]] | None = None,
           games: int | None = None, seed: int | None = None, players: Sequence[int] | None = None,
           workers: int | None = None, dask: str | None = None, force: bool = False,
           quiet: bool = False) -> Path:
    """The bot ladder: how strong each policy is against the others on the same deals. Returns
    the folder (default ladder-CONFIG), which `play(..., measured=[folder])` quotes."""
    from simcell.tools.ladder import run_ladder

    config = Path(config)
    folder = _folder(out, f"ladder-{config.stem}")
    return _tool(lambda p: run_ladder(config, folder, p, policies=list(policies) if policies else None,
                                      params=params or {}, games=games, seed=seed),
                 players=players, workers=workers, dask=dask, force=force, quiet=quiet)


def tune(config: str | Path, out: str | Path | None = None, *,
         cards: Sequence[str] | None = None, fields: Sequence[str] | None = None,
         range_: int | None = None, screen_games: int | None = None, rounds: int | None = None,
         games: int | None = None, board: Sequence[str] | None = None,
         rules: Sequence[str] | None = None, board_trials: int | None = None,
         budget_minutes: float | None = None, budget_games: int | None = None,
         types: bool | None = None, rungs: Sequence[str] | None = None,
         seed: int | None = None, players: Sequence[int] | None = None,
         workers: int | None = None, dask: str | None = None, force: bool = False,
         quiet: bool = False) -> Path:
    """Propose card values (and, if named, board values and rule switches) that bring the game
    into its bands, fewest changes first, confirmed on fresh seeds; each option defaults to the
    config's [tune] table (`rungs`: the fields every run plays beside the config's, [] none).
    Returns the folder (default tune-CONFIG)."""
    from simcell.config.tune import tune_space
    from simcell.tools.tune import run_tune

    config = Path(config)
    folder = _folder(out, f"tune-{config.stem}")

    def listed(values):
        return list(values) if values else None

    with _one_line():
        space = tune_space(config, listed(cards), listed(fields), range_, screen_games, rounds,
                           games, listed(board), board_trials, budget_games, budget_minutes,
                           listed(rules), types, list(rungs) if rungs is not None else None)
    return _tool(lambda p: run_tune(config, folder, p, space, seed=seed),
                 players=players, workers=workers, dask=dask, force=force, quiet=quiet)
