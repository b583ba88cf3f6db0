"""A studio session: the config's game at one player count and field, N games on one seed cut
into blocks, the baseline's blocks and the current edit's, played by a pool of warm worker
processes (the kernel loaded once, at start; no compile per edit).

One feeder thread keeps 2 x workers blocks in flight, lowest block first, the baseline's block b
before the edit's (the pair is what the page needs); a newer edit cancels the blocks of the one
before it that have not started and drops those that finish late. Results are the compare
report's paired tables over the blocks both sets have finished (figures.py)."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simcell.config.errors import ConfigError, card_type_named
from simcell.config.load import load_run_config
from simcell.config.variants import base_config
from simcell.policies.registry import game_loop
from simcell.runner.backends import end_pool, worker_start
from simcell.studio.blocks import BlockSpec, play_block, warm_worker
from simcell.studio.edits import Edit, check
from simcell.studio.figures import paired_figures
from simcell.reports.intervals import watched_quantile

DEFAULT_GAMES = 20_000
DEFAULT_BLOCK = 1_000  # games a block: 20 blocks at the default games, a first pair within 0.2 s


def _init_worker(parent: int, loops: tuple[int, ...]) -> None:
    worker_start(parent)  # Ctrl-C is the server's to handle; gone with the server
    warm_worker(loops)


@dataclass
class SetRun:
    """One card set's blocks: the baseline (generation 0) or an edit."""

    generation: int
    edit: Edit
    game: object  # GameDefinition
    blocks: dict[int, tuple] = field(default_factory=dict)  # block -> (sums, final HP by game)
    flying: dict[int, Future] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    first_result: float | None = None  # seconds from the edit to its first paired figures
    finished: float | None = None  # ... to its last block


class Session:
    def __init__(self, config: Path, folder: Path, *, players: int | None = None,
                 games: int = DEFAULT_GAMES, seed: int | None = None, block: int = DEFAULT_BLOCK,
                 workers: int | None = None, field_name: str | None = None,
                 baseline: Path | None = None):
        from simcell.runner.fields import seating
        from simcell.runner.run import card_table

        self.config, self.folder = config, folder
        if players is not None and not 2 <= players <= 5:
            raise ConfigError(config, "players", f"{players} players: Cytosis is for 2 to 5")
        # the game checked at the studio's player count, as `simcell run --players` checks it
        self.rc = load_run_config(config, players=(players,) if players is not None else None)
        self.players = self.rc.players[0]
        fields = {f.name: f for f in self.rc.fields}
        if field_name is not None and field_name not in fields:
            raise ConfigError(config, "field", f"no field named {field_name!r}; the config's: {', '.join(fields)}")
        self.field = fields[field_name] if field_name else self.rc.fields[0]
        s = seating(self.field, self.players)
        if s.user_policy is not None:
            raise ConfigError(config, "field", "the studio plays built-in policies only (this field has "
                              f"the user policy {s.user_policy!r}); use simcell sweep or compare")
        self.loops = (game_loop(s.player_policy),)
        self.seed = seed if seed is not None else self.rc.seed
        rotations = s.rotations
        self.block = max(rotations, block // rotations * rotations)  # whole rotation groups
        self.games = max(games, 2 * self.block)
        self.spans = [(first, min(self.block, self.games - first)) for first in range(0, self.games, self.block)]
        watched_quantile(len(self.spans))  # each block a look: its quantile worked out once, now
        self.baseline_run = baseline
        self.workers = workers or max(1, multiprocessing.cpu_count())
        self.base = base_config(config)
        self.cards = card_table(self.rc.game)
        bands = dict(self.rc.report.bands)
        if self.rc.report.seat_band_pp:
            bands["seat_win_share_pp"] = dict(self.rc.report.seat_band_pp).get(self.players, bands["seat_win_share_pp"])
        self.bands = bands
        self.field_table = next((f for f in self.base.get("field", []) if f.get("name") == self.field.name), None)
        self.lock = threading.Condition()
        self.baseline = SetRun(0, Edit(()), self.rc.game)
        self.current: SetRun | None = None
        self.generation = 0
        self.error: str | None = None
        self.pool: ProcessPoolExecutor | None = None
        self.closed = False
        self._cache: tuple | None = None
        self._feeder: threading.Thread | None = None
        if baseline is not None:
            self._read_baseline(baseline, games)

    def _read_baseline(self, root: Path, games: int) -> None:
        """The baseline from a run directory of this config's game, player count and field: its
        own blocks (the first of them that hold at least `games` games) are the studio's, its
        seed the edits' seed, its per-block sums read from its records; nothing replayed."""
        from simcell.reports.changes import segment_sums
        from simcell.reports.data import ReportError, RunData

        try:
            run = RunData(root)
        except (ReportError, FileNotFoundError) as exc:
            raise ConfigError(root, None, str(exc)) from None
        theirs, mine = run.resolved["game"]["content_hash"], self.rc.game.content_hash
        if theirs != mine:
            raise ConfigError(root, None, f"the run played another game (content hash {theirs[:12]}, "
                              f"the config's {mine[:12]}): give the config it was run from")
        seg = next((g for g in run.segments if g.players == self.players and g.field_name == self.field.name), None)
        if seg is None:
            raise ConfigError(root, None, f"the run has no {self.players}-player segment of the field "
                              f"{self.field.name!r}; it has: {', '.join(g.label for g in run.segments)}")
        if run.resolved["duplicate"] or tuple(seg.policies) != tuple(self.field.policies):
            raise ConfigError(root, None, "the run's field plays other policies (or duplicate mode) "
                              "than the config's: pair it with the config it was run from")
        sums, hp = segment_sums(run, seg)
        starts = np.searchsorted(run.block_of_games(seg, np.arange(seg.games)), np.arange(seg.blocks + 1))
        spans = [(int(a), int(b - a)) for a, b in zip(starts[:-1], starts[1:])]
        keep = next((i + 1 for i in range(len(spans)) if starts[i + 1] >= games), len(spans))
        keep = max(keep, min(2, len(spans)))
        self.spans, self.seed = spans[:keep], run.seed
        watched_quantile(len(self.spans))
        self.games = int(starts[keep])
        self.block = max(n for _, n in self.spans)
        for b, (first, n) in enumerate(self.spans):
            self.baseline.blocks[b] = ({k: v[b : b + 1] for k, v in sums.items()}, hp[first : first + n])
        self.baseline.finished = 0.0

    # -- life cycle --------------------------------------------------------------------------
    def start(self) -> None:
        """Load the kernel here (compiling it on a first run), start the warm workers and the
        baseline."""
        from simcell.runner.warm import warm

        warm(set(self.loops))
        self._start_workers()

    def _start_workers(self) -> None:
        self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_init_worker, initargs=(os.getpid(), self.loops))
        self._feeder = threading.Thread(target=self._feed, name="studio-feeder", daemon=True)
        self._feeder.start()

    def _recover(self) -> None:
        """After a failed block or a dead worker: a fresh pool for the next edit (the page showed
        the error; the baseline's finished blocks are kept)."""
        old = self.pool
        with self.lock:
            self.error = None
            for run in (self.baseline, self.current):
                if run is not None:
                    run.flying.clear()
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)
        if self._feeder is not None and self._feeder.is_alive():
            with self.lock:
                self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=_init_worker, initargs=(os.getpid(), self.loops))
        else:
            self._start_workers()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self.lock.notify_all()
        if self.pool is not None:
            end_pool(self.pool, wait=False)  # a block in flight is not waited for

    def wait_baseline(self, timeout: float = 600) -> bool:
        end = time.perf_counter() + timeout
        with self.lock:
            while len(self.baseline.blocks) < len(self.spans) and not self.error:
                left = end - time.perf_counter()
                if left <= 0:
                    return False
                self.lock.wait(left)
        return not self.error

    # -- edits -------------------------------------------------------------------------------
    def edit(self, values: dict[str, str], changed: str | None = None) -> int:
        """Start playing the edited set (the config's values with `values` set) on the
        baseline's games; returns its generation. EditError (nothing played, the running edit
        kept) when a value cannot be played."""
        edit = Edit.of(values)
        with self.lock:
            n = self.generation + 1
        rc = check(self.config, self.base, edit, self.folder, f"edit-{n}", changed)
        if self.error is not None and self.pool is not None:
            self._recover()
        with self.lock:
            self.generation = n
            if self.current is not None:
                for fut in list(self.current.flying.values()):  # done callbacks remove theirs
                    fut.cancel()
            self.current = SetRun(n, edit, rc.game) if edit.values else None
            self.lock.notify_all()
        return n

    # -- the feeder ----------------------------------------------------------------------------
    def _next(self) -> tuple[SetRun, int] | None:
        for b in range(len(self.spans)):
            for run in (self.baseline, self.current):
                if run is not None and b not in run.blocks and b not in run.flying:
                    return run, b
        return None

    def _feed(self) -> None:
        while True:
            with self.lock:
                while not self.closed:
                    flying = len(self.baseline.flying) + (len(self.current.flying) if self.current else 0)
                    task = self._next() if flying < 2 * self.workers and not self.error else None
                    if task is not None:
                        break
                    self.lock.wait(0.5)
                if self.closed:
                    return
                run, b = task
                first, n = self.spans[b]
                try:
                    fut = self.pool.submit(play_block, BlockSpec(run.game, self.players, self.seed, self.field, first, n))
                except RuntimeError as exc:  # the pool is broken or shut down
                    self.error = f"the worker pool stopped: {exc}"
                    self.lock.notify_all()
                    return
                run.flying[b] = fut
            fut.add_done_callback(lambda f, run=run, b=b: self._done(run, b, f))

    def _done(self, run: SetRun, b: int, fut: Future) -> None:
        with self.lock:
            run.flying.pop(b, None)
            if not fut.cancelled():
                exc = fut.exception()
                if exc is not None:
                    self.error = f"a block failed: {type(exc).__name__}: {exc}"
                elif run is self.baseline or run is self.current:
                    run.blocks[b] = fut.result()
                    if len(run.blocks) == len(self.spans):
                        run.finished = time.perf_counter() - run.started
            self.lock.notify_all()

    # -- what the page shows -----------------------------------------------------------------
    def results(self) -> dict:
        with self.lock:
            base, cur = dict(self.baseline.blocks), self.current
            edit_blocks = dict(cur.blocks) if cur else {}
            generation, error = self.generation, self.error
        out = {
            "generation": generation, "error": error, "players": self.players, "field": self.field.name,
            "seed": self.seed, "games": self.games, "blocks": len(self.spans),
            "baseline_games": int(sum(self.spans[b][1] for b in base)),
            "edit": dict(cur.edit.values) if cur else {},
            "edit_games": int(sum(self.spans[b][1] for b in edit_blocks)),
            "figures": None, "done": bool(cur and cur.finished is not None and len(base) == len(self.spans)),
        }
        if cur is None:
            return out
        common = tuple(sorted(set(base) & set(edit_blocks)))
        key = (generation, common)
        if self._cache is None or self._cache[0] != key:
            types = [card_type_named(t) for t in cur.edit.edited_types()]
            edited = sorted({k.split('"')[1] for k, _ in cur.edit.values if k.startswith('cards."')}
                            | set(self.cards.loc[self.cards["type"].isin(types), "name"]))
            figures = paired_figures({b: base[b] for b in common}, {b: edit_blocks[b] for b in common},
                                     players=self.players, field=self.field.name, cards=self.cards,
                                     bands=self.bands, edited_cards=edited, edited_types=types,
                                     looks=len(self.spans))
            with self.lock:
                if figures is not None and cur.first_result is None:
                    cur.first_result = time.perf_counter() - cur.started
            self._cache = (key, figures)
        out["figures"] = self._cache[1]
        out["first_result_s"] = cur.first_result
        out["finished_s"] = cur.finished
        return out

    def baseline_values(self) -> dict:
        """The config's card, rule and board values as the page's editable table shows them."""
        from simcell.config.summary import board_values
        from simcell.vocabulary import CARD_FIELDS, CARD_TYPE_LABELS

        cards = []
        for c in sorted(self.rc.game.cards, key=lambda c: c.id):
            values = {k: getattr(c, k) for k in CARD_FIELDS[c.type] if k != "gain"}
            cards.append({"id": c.id, "name": c.name, "type": c.type,
                          "values": {k: v for k, v in values.items() if isinstance(v, int | float | bool)}})
        rules = {k: v for k, v in vars(self.rc.game.rules).items() if isinstance(v, int | float | bool | str)}
        present = {c.type for c in self.rc.game.cards}
        types = [{"name": t, "label": CARD_TYPE_LABELS[t], "cards": sum(c.type == t for c in self.rc.game.cards),
                  "fields": [k for k in CARD_FIELDS[t] if k != "gain"]}
                 for t in CARD_TYPE_LABELS if t in present and t != "additional_resource"]
        return {"config": str(self.config), "cards": cards, "types": types, "rules": rules,
                "board": board_values(self.rc.game), "players": self.players,
                "field": self.field.name, "policies": list(self.field.policies), "seed": self.seed,
                "games": self.games, "block": self.block, "workers": self.workers,
                "baseline": str(self.baseline_run) if self.baseline_run else None}


def finite(x):
    """JSON has no NaN: None instead."""
    if isinstance(x, float) and not np.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [finite(v) for v in x]
    return x
