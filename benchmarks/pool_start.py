"""Worker start-up's share of a designer command: how long starting a pool of local workers
takes (spawn, import, load the cached kernel), how many pools a command starts, and so what share
of its wall time goes on starting workers.

    python benchmarks/pool_start.py [--workers 2] [--repeat 3] [--per-run]
        -- probe configs/5p.toml --out runs/bench-probe --force

The command after `--` runs in this process, as `simcell ...` would. Every pool it opens is
counted; the share is pools x (one pool's start, measured apart, median of --repeat) / wall.
`--per-run` plays the command as it was before one pool a command (each of its runs starts its
own workers), on the same build, for the before-and-after figure.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time

from simcell.policies.registry import LOOP_POLICIES
from simcell.runner import backends
from simcell.runner.warm import warm


def _loaded(loops: list[int]) -> int:
    warm(set(loops))
    return 0


def start_seconds(workers: int, loops: list[int]) -> float:
    """One pool from nothing to every worker holding the kernel's entry points."""
    t = time.perf_counter()
    with backends.LocalProcesses(workers) as pool:
        futures = [pool.pool.submit(_loaded, loops) for _ in range(workers)]
        for f in futures:
            f.result()
        took = time.perf_counter() - t
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--per-run", action="store_true",
                        help="every run of the command starts its own workers (before one pool a command)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- a simcell command and its arguments")
    args = parser.parse_args()
    command = [a for a in args.command if a != "--"]
    if not command:
        parser.error("give a simcell command after --")

    loops = [LOOP_POLICIES]  # the game loop a heuristic field (the planner, greedy) plays in
    _loaded(loops)  # the cache compiled here first, as the command's coordinator does
    starts = [start_seconds(args.workers, loops) for _ in range(args.repeat)]
    start = statistics.median(starts)

    pools = 0
    enter = backends.LocalProcesses.__enter__

    def counted(self):
        nonlocal pools
        pools += 1
        return enter(self)

    backends.LocalProcesses.__enter__ = counted
    if args.per_run:
        backends.shared_pool = lambda workers: contextlib.nullcontext()

    from simcell.cli import app

    t = time.perf_counter()
    try:
        app(command, standalone_mode=False)
    finally:
        wall = time.perf_counter() - t
    mode = "a pool every run" if args.per_run else "one pool a command"
    print(f"simcell {' '.join(command)}  ({mode}, {args.workers} workers)")
    print(f"  one pool's start: {start:.2f} s (median of {args.repeat}: "
          + ", ".join(f"{s:.2f}" for s in starts) + ")")
    print(f"  wall {wall:.1f} s; pools started {pools}; starting workers about "
          f"{pools * start:.1f} s = {100 * pools * start / wall:.1f}% of the wall time")


if __name__ == "__main__":
    main()
