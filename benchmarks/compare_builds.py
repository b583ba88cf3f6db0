"""Compare the kernel speed of two builds (two checkouts of simcell) on this noisy VM: both play
at the same time, one pinned to each core, so both see the same phase of the machine; the pair
runs again with the cores swapped, and each round prints both figures and their ratio.

This VM's speed drifts by 10-15% over minutes, so two builds timed one after the other differ
by more than most changes do; played side by side, the ratio of a pair spreads by a few percent.

    python benchmarks/compare_builds.py A_DIR B_DIR [--policy planner] [--games 8000]
                                        [--players 5] [--rounds 4]

A_DIR and B_DIR are checkouts (for example `git worktree add /tmp/b HEAD`, then edit there); each
build is imported from its own directory (PYTHONPATH) and compiles into its own cache folder
(named by its code hash), so compile each once first (any game). One process per build, one
core each: the figure is games per second of one core, records on, best of 3 chunks."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import sys, time
import simcell
print(simcell.__file__)  # the parent checks that this is the build's own copy
from simcell.config.load import load_default_game
from simcell.runner import games as G
from simcell.runner.fields import homogeneous
policy, players, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
game = load_default_game()
seating = homogeneous(policy, players)
G.play_chunk(game, players, 1, 0, n, seating)  # load the cache, size the buffers
best = 0.0
for _ in range(3):
    t = time.perf_counter()
    G.play_chunk_columns(game, players, 1, 0, n, seating, n, 64, False, G.user_fn(seating, G.Path(".")))
    best = max(best, n / (time.perf_counter() - t))
print(best)
"""


def _start(build: Path, core: int, args) -> subprocess.Popen:
    # run in the build's directory: `python -c` puts the working directory first on sys.path,
    # ahead of PYTHONPATH, so a child started from another checkout imports that checkout
    env = dict(os.environ, PYTHONPATH=str(build))
    cmd = [sys.executable, "-c", CHILD, args.policy, str(args.players), str(args.games)]
    return subprocess.Popen(cmd, env=env, cwd=build, stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: os.sched_setaffinity(0, {core}))


def _result(build: Path, out: str) -> float:
    """The child's games/s, after checking it imported simcell from `build`."""
    imported, figure = out.split()
    if not Path(imported).resolve().is_relative_to((build / "simcell").resolve()):
        sys.exit(f"the build in {build} imported simcell from {imported}")
    return float(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--policy", default="planner")
    parser.add_argument("--games", type=int, default=8000)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        sys.exit("compare_builds needs two cores (one per build)")
    print(f"{args.policy}, {args.players} players, {args.games:,} games a chunk, best of 3; "
          f"A = {args.a}, B = {args.b}; games/s of one core")
    ratios = []
    for r in range(args.rounds):
        ca, cb = (cores[0], cores[1]) if r % 2 == 0 else (cores[1], cores[0])
        pa, pb = _start(args.a, ca, args), _start(args.b, cb, args)
        out_a, _ = pa.communicate()
        out_b, _ = pb.communicate()
        if pa.returncode or pb.returncode:
            sys.exit("a build failed to play (run it alone to see why)")
        a, b = _result(args.a, out_a), _result(args.b, out_b)
        ratios.append(b / a)
        print(f"  round {r + 1}: A {a:,.0f} (core {ca})   B {b:,.0f} (core {cb})   B/A {b / a:.3f}")
    print(f"B/A: median {statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}")


if __name__ == "__main__":
    main()
