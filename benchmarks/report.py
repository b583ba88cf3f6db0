"""Report benchmark: time and peak memory to build the balance report of a run directory
(default: a fresh 1,000,000-game run of configs/5p.toml must exist; make one with
`simcell run configs/5p.toml --out runs/bench-5p`).

    python benchmarks/report.py RUN_DIR

It times each section in one process, then the whole report (a fresh RunData) built in one
process and in two (build_report's jobs; the default on a machine with two cores or more).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from simcell.reports.build import SECTIONS, build_report
from simcell.reports.data import RunData


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    args = parser.parse_args()
    run = RunData(args.run_dir)
    print(f"report benchmark: {args.run_dir} ({run.meta['games']:,} games)")
    for name, build in SECTIONS.items():  # figures not rendered: that is in the whole report
        t = time.perf_counter()
        build(run)
        print(f"  {name:<10} {time.perf_counter() - t:6.2f} s")
    for jobs in (1, 2):
        out = Path(tempfile.mkdtemp(prefix="simcell-report-"))
        try:
            t = time.perf_counter()
            build_report(args.run_dir, out, jobs=jobs)
            total = time.perf_counter() - t
        finally:
            shutil.rmtree(out, ignore_errors=True)
        print(f"whole report (fresh), {jobs} process(es): {total:.2f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS: {peak:,.0f} MiB (this process), {child:,.0f} MiB (the side process)")


if __name__ == "__main__":
    main()
