"""Runner benchmark: `simcell run` end to end (plan, workers, records to Parquet, block
aggregates, merge, summary) against the kernel's own time, and peak memory.

For each player count it runs a config's field (default: configs/5p.toml's planner) for
--games games into a temporary run directory and prints:
  end-to-end games/s    games / wall time of the whole run (worker start-up included)
  kernel games/s        games / (kernel seconds summed over chunks / workers): what the workers'
                        kernel alone would take with perfect balance
  overhead              1 - kernel rate / end-to-end rate: the runner's share of the wall time
  peak RSS              the coordinator and the largest worker process (MiB)

    python benchmarks/runner.py [--config configs/5p.toml] [--games N] [--players 2 3 4 5]
                                [--workers W] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from simcell.runner.run import RunOptions, Runner
from simcell.reports.summary import summary_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=Path("configs/5p.toml"))
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--players", type=int, nargs="+", default=[5])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", type=Path, default=None, help="write the runs here and keep them")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="simcell-bench-"))
    print(f"runner benchmark: {args.config}, {args.games:,} games per player count, "
          f"{args.workers} worker(s)")
    print(f"{'players':>7} {'end-to-end games/s':>19} {'kernel games/s':>15} {'overhead':>9} "
          f"{'wall s':>8} {'disk MiB':>9} {'peak RSS MiB (coord/worker)':>28}")
    try:
        for p in args.players:
            out = base / f"p{p}"
            t = time.perf_counter()
            runner = Runner(args.config, RunOptions(games=args.games, players=(p,), out=out,
                                                    workers=args.workers, force=True))
            outcome = runner.run()
            summary_text(out)  # the summary is part of a run's end
            wall = time.perf_counter() - t
            meta = json.loads((out / "run.json").read_text())
            inv = meta["invocations"][-1]
            kernel_rate = outcome.games_played / (inv["kernel_seconds"] / max(1, inv["workers"]))
            e2e = outcome.games_played / wall
            disk = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 2**20
            own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(f"{p:>7} {e2e:>19,.0f} {kernel_rate:>15,.0f} {1 - e2e / kernel_rate:>9.1%} "
                  f"{wall:>8.1f} {disk:>9,.0f} {own:>13,.0f} / {child:<13,.0f}", flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
