"""Kernel benchmark: games and decisions per second for one policy in every seat (default random),
2-5 players, records on.

What the figure includes: setup, every decision (legal actions, the policy's choice, applying
the action, Phase 2, scoring), writing the per-(game, player) and per-game record columns and
the block aggregates, in one process per core (games split in equal shares across processes,
since numba's own threads add nothing to independent games). Each process plays its share as
`simcell run`'s workers do: in work units of the runner's largest size (plan.MAX_CHUNK_GAMES)
into record buffers reused from unit to unit (runner/games.play_chunk_columns). It excludes the
first compile (cached on disk) and what the runner does with the columns afterwards (Arrow
tables and Parquet, in `benchmarks/runner.py`'s overhead).

    python benchmarks/kernel.py [--games N] [--workers W] [--policy NAME] [--players 2 3 4 5]
                                [--repeat R]

This machine is a VM whose speed drifts by 10-15% over minutes: to compare two builds, alternate
them and compare the best of a few repeats (--repeat prints each and the best).
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor

from simcell.config.load import load_default_game
from simcell.runner.fields import homogeneous
from simcell.policies.user import no_user_policy
from simcell.runner.games import chunk_buffers, play_chunk, play_chunk_columns, tables_for
from simcell.runner.plan import MAX_CHUNK_GAMES

BLOCKS = 64


def _work(args: tuple[int, int, int, int, str]) -> tuple[int, float]:
    players, first, n, total, policy = args
    game = load_default_game()
    seating = homogeneous(policy, players)
    size = min(n, MAX_CHUNK_GAMES)
    chunk_buffers(tables_for(game, players), (game, players), BLOCKS, size)  # as a worker's first unit
    user_fn = no_user_policy()
    play_chunk_columns(game, players, 1, 0, 2, seating, total, BLOCKS, False, user_fn)  # load the kernel
    decisions = 0
    t = time.perf_counter()
    for start in range(first, first + n, size):
        _, d = play_chunk_columns(game, players, 1, start, min(size, first + n - start), seating,
                                  total, BLOCKS, False, user_fn)
        decisions += d
    return decisions, time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--policy", default="random")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--repeat", type=int, default=1, help="time each player count R times")
    args = parser.parse_args()
    play_chunk(load_default_game(), 2, 1, 0, 2)  # compile (or load the cache) once
    print(f"kernel benchmark: {args.policy} in every seat, records and block aggregates on, "
          f"{args.workers} worker process(es), {args.games:,} games per player count")
    print(f"{'players':>7} {'games/s':>10} {'decisions/s':>12} {'decisions/game':>15}")
    with ProcessPoolExecutor(args.workers) as pool:
        for players in args.players:
            per = args.games // args.workers
            jobs = [(players, w * per, per, args.games, args.policy) for w in range(args.workers)]
            best = 0.0
            for _ in range(args.repeat):
                t = time.perf_counter()
                results = list(pool.map(_work, jobs))
                wall = time.perf_counter() - t
                kernel_time = max(r[1] for r in results)
                decisions = sum(r[0] for r in results)
                games = per * args.workers
                best = max(best, games / kernel_time)
                print(f"{players:>7} {games / kernel_time:>10,.0f} {decisions / kernel_time:>12,.0f} "
                      f"{decisions / games:>15.1f}   (wall {wall:.1f} s incl. worker start-up)")
            if args.repeat > 1:
                print(f"{players:>7} {best:>10,.0f}   best of {args.repeat}")


if __name__ == "__main__":
    main()
