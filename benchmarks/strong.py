"""The strong bot beside the planner, in one run: five-player games per second of a field of each
(every seat the same policy, one process per core, records on, as `simcell run`'s workers play),
then at each search budget (playouts per searched decision) the rollout's margin over a planner
field at 2-5 players: one rollout seat among planners, every deal under every cyclic seat
rotation (duplicate mode), win share minus the fair share with a 95% interval over deals. The
`oracle` (the same search on the true hidden cards and event order) is played the same way at
the default budget: the upper reference.

    python benchmarks/strong.py [--games N] [--deals N] [--budgets 2 4 8] [--players 2 3 4 5]
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor

from strength import duplicate_match

from simcell.config.load import PolicyField, load_default_game
from simcell.policies.registry import ROLLOUT_PARAMS
from simcell.runner.fields import seating
from simcell.runner.games import play_chunk


def _chunk(args) -> float:
    policy, params, players, first, n = args
    field = PolicyField(name="f", policy=policy, params=((policy, tuple(sorted(params.items()))),))
    start = time.perf_counter()
    play_chunk(load_default_game(), players, 5, first, n, seating(field, players))
    return time.perf_counter() - start


def games_per_second(policy: str, params: dict, players: int, games: int) -> float:
    """Games/s of a field of `policy` on one process per core (compiled beforehand)."""
    workers = os.cpu_count() or 1
    step = -(-games // workers)
    jobs = [(policy, params, players, i, min(step, games - i)) for i in range(0, games, step)]
    start = time.perf_counter()
    with ProcessPoolExecutor(len(jobs)) as ex:
        list(ex.map(_chunk, jobs))
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games of each 5-player field timed")
    parser.add_argument("--deals", type=int, default=1200, help="deals per margin (x players games)")
    parser.add_argument("--budgets", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--seed", type=int, default=4242)
    args = parser.parse_args()
    for policy in ("planner", "rollout", "oracle"):  # compile each loop before timing
        _chunk((policy, {}, 2, 0, 2))
    print(f"5-player fields, {os.cpu_count()} workers, {args.games} games each (games/s):")
    print(f"  planner            {games_per_second('planner', {}, 5, args.games * 20):9.1f}")
    for b in args.budgets:
        rate = games_per_second("rollout", {"playouts": float(b)}, 5, args.games)
        print(f"  rollout playouts {b:<2}{rate:9.1f}")
    print(f"margin over a planner field (one seat among planners, {args.deals} deals, duplicate, "
          f"95% interval over deals):")
    for players in args.players:
        for b in args.budgets:
            start = time.perf_counter()
            m = duplicate_match("rollout", "planner", players, args.deals, args.seed,
                                params={"rollout": {"playouts": float(b)}})
            print(m.line(f"rollout playouts {b}"), f"[{time.perf_counter() - start:.0f} s]", flush=True)
        start = time.perf_counter()
        m = duplicate_match("oracle", "planner", players, args.deals, args.seed)
        print(m.line(f"oracle playouts {ROLLOUT_PARAMS['playouts']:g} (sees all)"),
              f"[{time.perf_counter() - start:.0f} s]", flush=True)


if __name__ == "__main__":
    main()
