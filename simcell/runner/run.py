"""`simcell run`: play a config's games across workers into a run directory, interrupt-safe
and resumable, then summarise.

The coordinator plans the run (segments, blocks, chunks), writes the resolved config and run
metadata, has the backend compile or load the kernel's game loops once per machine
(runner/warm.py), sends unfinished chunks to it, writes each finished chunk's files as it comes
back, and when every chunk is in, merges the block aggregates. Ctrl-C or a crash leaves the
finished chunks on disk; --resume plays only the rest and ends with the same files an
uninterrupted run writes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import platform
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from simcell import __version__
from simcell.config.load import RunConfig, load_default_game, load_run_config
from simcell.config.summary import card_difference_rows
from simcell.runner.backends import BackendError, backend
from simcell.runner.disk import PRUNED, SIZE, folder_bytes
from simcell.runner.plan import Chunk, Segment, chunk_size, chunks, segments
from simcell.vocabulary import RECORD_SCHEMA_VERSION
from simcell.runner.resolved import differences, resolved_config, resolved_hash, user_policy_source
from simcell.vocabulary import RESOLVED_FILE, RUN_FILE
from simcell.runner.store import RunDir, RunDirError
from simcell.runner.warm import loops_of
from simcell.runner.work import ChunkSpec
from simcell.vocabulary import CARDS_FILE




def card_table(game) -> pd.DataFrame:
    """The run's cards: id, name, type, values, cost in placements, HP per placement."""
    from simcell.config.summary import card_rows

    rows = card_rows(game)
    for r in rows:
        r["gain"] = " ".join(str(x) for x in r["gain"]) if r.get("gain") is not None else ""
    return pd.DataFrame(rows)


class RunError(Exception):
    """A run that cannot start or go on; the message says why and what to do."""


@dataclass(frozen=True)
class RunOptions:
    games: int | None = None  # per field and player count (default: the config's)
    seed: int | None = None
    players: tuple[int, ...] | None = None
    out: Path | None = None
    workers: int | None = None  # default: every core
    force: bool = False
    resume: Path | None = None
    dask: str | None = None  # scheduler address (default: the config's [dask] scheduler)
    chunk_games: int | None = None  # work-unit size (default: planned from games and workers)


@dataclass
class RunOutcome:
    root: Path
    status: str  # "complete" or "interrupted"
    games: int  # games on disk
    games_played: int  # games played by this invocation
    seconds: float  # wall time of this invocation
    decisions: int
    prepare_seconds: float = 0.0  # of which compiling or loading the kernel for the workers


def default_out(config: Path) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("runs") / f"{config.stem}-{stamp}"


def _machine() -> dict:
    from importlib.metadata import version

    return {
        "host": platform.node(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "numba": version("numba"),
        "numpy": version("numpy"),
    }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def load(config: Path, opts: RunOptions) -> RunConfig:
    """The config with the command line's --games, --seed and --players applied."""
    rc = load_run_config(config, players=opts.players)
    changes = {}
    if opts.games is not None:
        changes["games"] = opts.games
    if opts.seed is not None:
        changes["seed"] = opts.seed
    return dataclasses.replace(rc, **changes) if changes else rc


class Runner:
    """One invocation of `simcell run` (a fresh run or a resume)."""

    def __init__(self, config: Path, opts: RunOptions, progress=None):
        self.config = Path(config)
        self.opts = opts
        self.progress = progress  # callable(games_done_now, games_total) or None
        self.rc = load(self.config, opts)
        self.workers = opts.workers or os.cpu_count() or 1
        self.dask = opts.dask or self.rc.dask
        try:
            self.segments = segments(self.rc)
        except ValueError as exc:
            raise RunError(str(exc)) from exc
        self.resolved = resolved_config(self.rc, self.segments)
        self.hash = resolved_hash(self.resolved)
        self.root: Path | None = None  # the run directory, once opened
        self.sources = {s.field_index: user_policy_source(s.field, self.config.parent)
                        for s in self.segments}

    @property
    def loops(self) -> set[int]:
        """The game loops (registry.LOOP_*) this run's fields play in."""
        from simcell.runner.fields import seating

        return loops_of(seating(s.field, s.players) for s in self.segments)

    # -- the run directory -------------------------------------------------------------------
    def _open(self) -> tuple[RunDir, dict]:
        opts = self.opts
        if opts.resume is not None:
            run = RunDir.open(opts.resume)
            meta = run.read_json(RUN_FILE)
            if meta.get("resolved_hash") != self.hash:
                old = run.read_json(RESOLVED_FILE)
                diff = differences(old, self.resolved)
                raise RunError(
                    f"{opts.resume} was made from a different resolved config; resuming it would "
                    "mix records of two runs. Differences:\n  " + "\n  ".join(diff[:12])
                )
            return run, meta
        run = RunDir.create(opts.out or default_out(self.config), opts.force)
        sizes = [opts.chunk_games or chunk_size(s, self.workers) for s in self.segments]
        meta = {
            "simcell_version": __version__,
            "record_schema_version": RECORD_SCHEMA_VERSION,
            "resolved_hash": self.hash,
            "content_hash": self.rc.game.content_hash,
            "code_hash": self.resolved["code_hash"],
            "config": str(self.config),
            "data_files": [list(x) for x in self.rc.data_files],
            "overrides": list(self.rc.overrides),
            # the card set against the shipped one of this simcell, for the report's header
            "card_differences": card_difference_rows(self.rc.game, load_default_game()),
            "seed": self.rc.seed,
            "duplicate": self.rc.duplicate,
            "segments": [
                {"players": s.players, "field": s.field_index, "field_name": s.field.name,
                 "games": s.games, "rotations": s.rotations, "blocks": s.blocks,
                 "chunk_games": size, "path": s.name}
                for s, size in zip(self.segments, sizes)
            ],
            "status": "running",
            "created": _now(),
            "invocations": [],
            "machine": _machine(),
        }
        run.write_json(RESOLVED_FILE, self.resolved)
        run.write_text("config.toml", self.config.read_text(encoding="utf-8"))
        run.write_text(CARDS_FILE, card_table(self.rc.game).to_csv(index=False, lineterminator="\n"))
        run.write_json(RUN_FILE, meta)
        return run, meta

    def _plan(self, meta: dict) -> dict[int, list[Chunk]]:
        return {s.index: chunks(s, meta["segments"][s.index]["chunk_games"]) for s in self.segments}

    def _spec(self, seg: Segment, ch: Chunk) -> ChunkSpec:
        return ChunkSpec(
            segment=seg.index, index=ch.index, game=self.rc.game, players=seg.players,
            seed=self.rc.seed, field=seg.field, first=ch.first, n=ch.n, total=seg.games,
            blocks=seg.blocks, duplicate=self.rc.duplicate, user_source=self.sources[seg.field_index],
        )

    # -- running -----------------------------------------------------------------------------
    def run(self) -> RunOutcome:
        from simcell.kernel.jit import CODE_HASH

        run, meta = self._open()
        self.root = run.root
        plan = self._plan(meta)
        todo = [(s, c) for s in self.segments for c in plan[s.index] if not run.finished(s, c)]
        total = sum(s.games for s in self.segments)
        done = total - sum(c.n for _, c in todo)
        started = time.perf_counter()
        invocation = {"started": _now(), "workers": self.workers,
                      "backend": "dask " + self.dask if self.dask else None,
                      "games_at_start": done}
        meta["invocations"].append(invocation)
        meta["status"] = "running"
        run.write_json(RUN_FILE, meta)
        played = 0
        prepare = 0.0
        kernel_seconds = 0.0
        status = "interrupted"
        try:
            if self.progress:
                self.progress(done, total)
            if todo:
                by_key = {(s.index, c.index): (s, c) for s, c in todo}
                with backend(self.workers, self.dask) as b:
                    invocation["backend"] = b.name + (f" {self.dask}" if self.dask else "")
                    invocation["workers"] = b.workers
                    t = time.perf_counter()
                    b.prepare(self.loops)
                    prepare = time.perf_counter() - t
                    invocation["prepare_seconds"] = round(prepare, 3)
                    for result in b.run(self._spec(s, c) for s, c in todo):
                        if result.code_hash != CODE_HASH:
                            raise RunError(
                                f"a worker runs other simcell code (version {result.version}, "
                                f"code {result.code_hash[:12]}; here {__version__}, "
                                f"{CODE_HASH[:12]}): install the same simcell on every worker"
                            )
                        seg, ch = by_key[(result.segment, result.index)]
                        run.write_chunk(seg, ch, result)
                        played += ch.n
                        done += ch.n
                        kernel_seconds += result.seconds
                        if self.progress:
                            self.progress(done, total)
            decisions = run.merge_blocks(self.rc.game, self.segments, plan)
            status = "complete"
        except BackendError as exc:
            raise RunError(str(exc)) from exc
        finally:
            wall = time.perf_counter() - started
            invocation.update(ended=_now(), seconds=round(wall, 3), games_played=played,
                              kernel_seconds=round(kernel_seconds, 3), status=status)
            meta["status"] = status
            meta["games_done"] = done
            if status == "complete":
                meta["games"] = total
                meta["decisions"] = decisions
                meta["completed"] = _now()
                meta.pop(PRUNED, None)  # a pruned run resumed: its records are played again
                meta[SIZE] = folder_bytes(run.root)
            with contextlib.suppress(RunDirError):  # a full disk: the chunks stay consistent
                run.write_json(RUN_FILE, meta)
        return RunOutcome(run.root, status, done, played, wall, meta.get("decisions", 0), prepare)


__all__ = ["RunError", "RunDirError", "RunOptions", "RunOutcome", "Runner", "default_out"]
