"""Strength ladder (issue 4): at 2-5 players, each policy in one seat against a field of the
policy below it, in duplicate mode (every deal under every seat rotation), with 95% intervals
over deals. The rollout's margin over the planner by budget, and its speed: strong.py.

    python benchmarks/ladder.py [--deals N] [--seed S]
"""

from __future__ import annotations

import argparse
import time

from strength import duplicate_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=9090)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    args = parser.parse_args()
    print("ladder: challenger in one seat vs a field of the policy below; win share minus fair "
          "share, duplicate mode, 95% interval over deals")
    for players in args.players:
        for challenger, field in (("greedy", "random"), ("planner", "greedy")):
            t = time.perf_counter()
            m = duplicate_match(challenger, field, players, args.deals, args.seed)
            print(m.line(f"{challenger} vs {field} field"), f"[{time.perf_counter() - t:.0f} s]")


if __name__ == "__main__":
    main()
