"""Report benchmark: time and peak memory to build the balance report of a run directory
(default: a fresh 1,000,000-game run of configs/5p.toml must exist; make one with
`simcell run configs/5p.toml --out runs/bench-5p`).

    python benchmarks/report.py RUN_DIR
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from simcell.reports.build import build_report
from simcell.reports.data import RunData
from simcell.reports.sections import advice, header, policies, seats, shape, sources, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    args = parser.parse_args()
    run = RunData(args.run_dir)
    print(f"report benchmark: {args.run_dir} ({run.meta['games']:,} games)")
    steps = [("header", lambda: header.build(run)), ("verdicts", lambda: verdicts.build(run)),
             ("seats", lambda: seats.build(run, 2.0)), ("sources", lambda: sources.build(run)),
             ("policies", lambda: policies.build(run)), ("shape", lambda: shape.build(run)),
             ("advice", lambda: advice.build(run))]
    for name, step in steps:
        t = time.perf_counter()
        step()
        print(f"  {name:<10} {time.perf_counter() - t:6.2f} s")
    out = Path(tempfile.mkdtemp(prefix="simcell-report-"))
    try:
        t = time.perf_counter()
        build_report(args.run_dir, out)
        total = time.perf_counter() - t
    finally:
        shutil.rmtree(out, ignore_errors=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"whole report (fresh): {total:.2f} s, peak RSS {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
