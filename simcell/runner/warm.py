"""Compiling the kernel before the work starts, once per machine: the game loops a run's fields
play (registry.LOOP_*) and the runner's record sums are compiled (or loaded from numba's cache
on disk) in one process, so that workers on the same machine only load them.

A local run warms in the coordinating process before its workers start; a Dask run warms one
worker per host first, then the others (kernel/jit.py names the cache folder, shared by every
process of a user on a machine). `simcell warm` does it ahead of time, for images and clusters.
A traced game (`simcell replay`) plays through other entry points, the single-game loops, which
`warm_traced` compiles the same way, once, when the first replay of a loop needs them.
"""

from __future__ import annotations

import json
import os
import pickle
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simcell.policies.registry import LOOP_POLICIES, LOOP_RANDOM, LOOP_SEARCH, game_loop

LOOP_NAMES = {LOOP_RANDOM: "random", LOOP_POLICIES: "policies", LOOP_SEARCH: "search"}
# a policy whose field plays in each loop, to build a zero-game call of its entry point
_LOOP_POLICY = {LOOP_RANDOM: "random", LOOP_POLICIES: "greedy", LOOP_SEARCH: "rollout"}
# cold compile of each loop's entry point on the 2-core AMD EPYC development VM (seconds,
# benchmarks/compile.py): what `simcell run` expects until this machine has timed its own
DEFAULT_SECONDS = {LOOP_RANDOM: 22.0, LOOP_POLICIES: 35.0, LOOP_SEARCH: 45.0}
SUMS_SECONDS = 2.0
TIMINGS_FILE = "compile-seconds.json"
TRACED = "replay"  # timings of a loop's traced entry points are kept as "replay-LOOP"


@dataclass
class Warmed:
    """What warm() did: each entry point compiled or loaded, and how long it took."""

    seconds: dict[str, float]  # entry name -> seconds
    compiled: list[str]  # entries compiled here (the rest were loaded from the cache)

    @property
    def total(self) -> float:
        return sum(self.seconds.values())


def loops_of(seatings: Iterable) -> set[int]:
    """The game loops fields with these Seatings play in."""
    return {game_loop(s.player_policy) for s in seatings}


def _entry(loop: int):
    from simcell.play.game import PLAY_CHUNK

    return PLAY_CHUNK[loop]


def _cached(dispatcher) -> bool | None:
    """Whether numba's on-disk cache holds code of `dispatcher` for its current source files, so
    that a call loads it instead of compiling it; None when this numba's cache is not laid out
    as read here (the index file of the function's FunctionCache). Nothing is compiled."""
    try:
        index = dispatcher._cache._cache_file._load_index()
    except (AttributeError, OSError, EOFError, ValueError, pickle.UnpicklingError):
        return None
    return bool(index)


def needs_compile(loops: Iterable[int]) -> bool | None:
    """Whether warm(loops) would compile anything (None: cannot tell)."""
    from simcell.kernel.sums import add_rows_by_key

    states = [_cached(_entry(loop)) for loop in loops] + [_cached(add_rows_by_key)]
    if None in states:
        return None
    return not all(states)


def _timings_path() -> Path:
    from simcell.kernel.jit import cache_base

    return cache_base() / TIMINGS_FILE


def _read_timings() -> dict[str, float]:
    try:
        data = json.loads(_timings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float)}


def _record_timings(seconds: dict[str, float]) -> None:
    path = _timings_path()
    data = _read_timings()
    data.update({k: round(v, 1) for k, v in seconds.items()})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache: the next run expects the default figures


def expected_seconds(loops: Iterable[int]) -> tuple[float, bool]:
    """The expected cold compile of these loops and the sums: (seconds, measured here), from
    this machine's last compile of each where there is one, else the development VM's."""
    timings = _read_timings()
    names = [LOOP_NAMES[loop] for loop in loops] + ["sums"]
    defaults = {LOOP_NAMES[k]: v for k, v in DEFAULT_SECONDS.items()} | {"sums": SUMS_SECONDS}
    measured = all(n in timings for n in names)
    return sum(timings.get(n, defaults[n]) for n in names), measured


def _warm_loop(loop: int) -> None:
    """Compile or load the entry point of `loop` by calling it for zero games (the argument
    types are those of every run: the tables' arrays do not depend on the player count)."""
    from simcell.config.load import load_default_game
    from simcell.policies.user import no_user_policy
    from simcell.runner.fields import homogeneous
    from simcell.runner.games import play_chunk_columns

    seating = homogeneous(_LOOP_POLICY[loop], 2)
    play_chunk_columns(load_default_game(), 2, 0, 0, 0, seating, seating.rotations, 1, False,
                       no_user_policy())


def _warm_sums() -> None:
    from simcell.kernel.sums import add_rows_by_key

    for dtype in (np.int64, np.int32):  # the seat measures and the flows (runner/records.py)
        add_rows_by_key(np.zeros((1, 1), dtype), np.zeros(1, np.int64), np.zeros((1, 1), np.int64))


def warm(loops: Iterable[int]) -> Warmed:
    """Compile (or load from the cache) the entry points of `loops` and the runner's sums in
    this process; records this machine's compile times for the next expectation."""
    from simcell.kernel.sums import add_rows_by_key

    loops = sorted(set(loops))
    steps = [(LOOP_NAMES[loop], _entry(loop), lambda loop=loop: _warm_loop(loop)) for loop in loops]
    steps.append(("sums", add_rows_by_key, _warm_sums))
    seconds, compiled = {}, []
    for name, dispatcher, call in steps:
        cold = _cached(dispatcher) is False
        t = time.perf_counter()
        call()
        seconds[name] = time.perf_counter() - t
        if cold:
            compiled.append(name)
    if compiled:
        _record_timings({n: seconds[n] for n in compiled})
    return Warmed(seconds, compiled)


def _traced_entries(loop: int) -> list:
    """The entry points a traced game of `loop` calls: the single-game loop, the seating and the
    game's records (runner/games.play_traced)."""
    from simcell.play.game import PLAY_GAME, record_game, seat_game

    return [PLAY_GAME[loop], seat_game, record_game]


def traced_name(loop: int) -> str:
    return f"{TRACED}-{LOOP_NAMES[loop]}"


def needs_compile_traced(loop: int) -> bool | None:
    """Whether warm_traced(loop) would compile anything (None: cannot tell)."""
    states = [_cached(entry) for entry in _traced_entries(loop)]
    if None in states:
        return None
    return not all(states)


def expected_traced_seconds(loop: int) -> tuple[float, bool]:
    """The expected cold compile of a loop's traced entry points: (seconds, measured here), this
    machine's last where there is one, else its game loop's on the development VM (the same
    rules and policies, compiled into another entry point)."""
    timings = _read_timings()
    name = traced_name(loop)
    return timings.get(name, DEFAULT_SECONDS[loop]), name in timings


def warm_traced(loop: int) -> Warmed:
    """Compile (or load from the cache) the traced entry points of `loop` by playing one traced
    2-player game of the shipped set in this process; records this machine's compile time."""
    from simcell.config.load import load_default_game
    from simcell.runner.fields import homogeneous
    from simcell.runner.games import play_traced

    name = traced_name(loop)
    cold = needs_compile_traced(loop) is True
    t = time.perf_counter()
    play_traced(load_default_game(), 2, 0, 0, homogeneous(_LOOP_POLICY[loop], 2))
    seconds = {name: time.perf_counter() - t}
    if cold:
        _record_timings(seconds)
    return Warmed(seconds, [name] if cold else [])


def warm_all() -> Warmed:
    """Every game loop and the sums (`simcell warm` without a config)."""
    return warm(LOOP_NAMES)
