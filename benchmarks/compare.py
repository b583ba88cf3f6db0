"""Compare benchmark: time and peak memory of `simcell compare` on two run directories (the
issue's target: two 1,000,000-game runs within 20 s on this 2-core VM).

    python benchmarks/compare.py A_DIR B_DIR

Make the pair once (both on the shipped 5-player config's seed; about 2 × 50 s of play):

    simcell compare configs/5p.toml benchmarks/configs/5p-insulin-2atp.toml --out runs/bench-compare
    python benchmarks/compare.py runs/bench-compare/a runs/bench-compare/b

It times the comparison as the command builds it (both runs' records read, every figure, the
report written), twice, and prints the faster with the process's peak RSS."""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from simcell.tools.compare.report import build_compare
from simcell.reports.data import RunData


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    args = parser.parse_args()
    games = [RunData(d).meta["games"] for d in (args.a, args.b)]
    print(f"compare benchmark: {args.a} ({games[0]:,} games) against {args.b} ({games[1]:,} games)")
    best = float("inf")
    for _ in range(2):
        out = Path(tempfile.mkdtemp(prefix="simcell-compare-"))
        try:
            t = time.perf_counter()
            build_compare(args.a, args.b, out)
            best = min(best, time.perf_counter() - t)
        finally:
            shutil.rmtree(out, ignore_errors=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  simcell compare: {best:.1f} s (best of 2); peak RSS {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
