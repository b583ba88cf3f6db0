"""Fit the planner's default worths so that no deviation of `simcell exploit`'s family gains much:
damped best response within the family, at every player count at once.

Each round plays, at each player count, the field (the planner with the current worths, a pool
rotated cyclically so player 0 sits in every seat) and, on the same games, the field with player
0 deviating by each member of the family (tools/exploit.deviations: each card type's weight
x2/3, x1.5, x3; goal and First Player Marker worths x0.5, x2; each resource's worth x2/3, x1.5).
Player 0's paired gain of win share is averaged over the player counts (each count one unit).
The field then moves up to `--moves` parameters, those whose deviations gain most beyond `--t`
standard errors, each half way (in log) towards its deviation, and the next round plays on fresh
games. It stops when no deviation gains beyond the threshold, or after `--rounds`. With one
`--players` count it fits that count's defaults, from them (registry.PLANNER_AT_PLAYERS holds
the counts whose fits moved).

    python benchmarks/fit_planner.py [--rounds 8] [--games 20000] [--players 2 3 4 5]
        [--moves 3] [--t 3] [--start JSON] [--workers 2]

Prints each round's ranked gains and the worths it moves to; the last line is the fitted worths
(changes from the registry's planner defaults) as JSON. `simcell exploit` then measures the
field's exploitability on fresh games, as its report states it."""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from simcell.config.load import PolicyField, load_default_game
from simcell.policies.registry import LABEL_MARK, LOOP_POLICIES, builtin
from simcell.tools.deviations import deviations

POLICY = "planner"
DEV = f"{POLICY}{LABEL_MARK}dev"
SEED = 48_000_001
BLOCKS = 16


@dataclass(frozen=True)
class Block:
    players: int
    seed: int
    first: int
    n: int
    field: dict  # worths of the field
    dev: dict  # worths of player 0 (the field's when it does not deviate)


def _warm() -> None:
    from simcell.runner.warm import warm

    warm((LOOP_POLICIES,))


def player0_wins(b: Block) -> float:
    """Player 0's summed win share over the block's games."""
    from simcell.runner.fields import seating
    from simcell.runner.games import play_chunk_columns, user_fn

    field = PolicyField(name="fit", pool=(DEV,) + (POLICY,) * (b.players - 1), rotation="cyclic",
                        params=((POLICY, tuple(sorted(b.field.items()))),
                                (DEV, tuple(sorted(b.dev.items())))))
    s = seating(field, b.players)
    buf, _ = play_chunk_columns(load_default_game(), b.players, b.seed, b.first, b.n, s,
                                b.first + b.n, 1, False, user_fn(s))
    pr = buf.pr
    m = b.n * b.players
    player = np.asarray(pr.player[:m])
    return float(np.asarray(pr.win_share[:m])[player == 0].sum())


def gains(pool, field: dict, family, counts, games: int, seed: int) -> dict:
    """{label: (mean gain pp over the counts, its standard error)} and the per-count gains."""
    n = games // BLOCKS
    jobs = []
    for p in counts:
        for label, key, factor in [("baseline", None, 1.0)] + family:
            dev = dict(field) if key is None else field | {key: field[key] * factor}
            jobs += [(p, label, Block(p, seed + p, b * n, n, field, dev)) for b in range(BLOCKS)]
    wins = list(pool.map(player0_wins, [j[2] for j in jobs], chunksize=4))
    by = {}
    for (p, label, _), w in zip(jobs, wins):
        by.setdefault((p, label), []).append(w / n * 100)
    out = {}
    for label, _, _ in family:
        per_count = []
        for p in counts:
            d = np.array(by[(p, label)]) - np.array(by[(p, "baseline")])
            per_count.append((d.mean(), d.std(ddof=1) / math.sqrt(BLOCKS)))
        mean = float(np.mean([m for m, _ in per_count]))
        se = float(math.sqrt(sum(s * s for _, s in per_count)) / len(per_count))
        out[label] = (mean, se, per_count)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    ap.add_argument("--moves", type=int, default=3)
    ap.add_argument("--t", type=float, default=3.0)
    ap.add_argument("--start", type=str, default=None, help="worths to start from (JSON)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    # fitted at one count, from that count's defaults (registry.PLANNER_AT_PLAYERS)
    defaults = dict(builtin(POLICY).defaults_at(args.players[0] if len(args.players) == 1 else None))
    field = defaults | (json.loads(args.start) if args.start else {})
    family = deviations(POLICY)
    crit = args.t
    with ProcessPoolExecutor(args.workers, initializer=_warm) as pool:
        for rnd in range(args.rounds):
            t0 = time.perf_counter()
            g = gains(pool, field, family, args.players, args.games, SEED + 1000 * rnd)
            ranked = sorted(g.items(), key=lambda kv: -kv[1][0])
            print(f"round {rnd + 1}: {time.perf_counter() - t0:.0f} s")
            for label, (mean, se, per) in ranked[:8]:
                counts = " ".join(f"{p}p {m:+.1f}" for p, (m, _) in zip(args.players, per))
                print(f"  {label:<28} {mean:+5.2f} pp (se {se:.2f})   {counts}")
            moved = []
            for label, (mean, se, _) in ranked:
                if len(moved) >= args.moves:
                    break
                if mean < crit * se:  # a noisier one above may hide one that gains beyond it
                    continue
                _, key, factor = next(d for d in family if d[0] == label)
                if key in [k for k, _ in moved]:
                    continue
                field[key] = field[key] * math.sqrt(factor)
                moved.append((key, field[key]))
            if not moved:
                print("  no deviation gains beyond the threshold: fitted")
                break
            print("  moved: " + ", ".join(f"{k} -> {v:.3g}" for k, v in moved), flush=True)
    changed = {k: round(v, 3) for k, v in field.items() if not math.isclose(v, defaults[k])}
    print(json.dumps(changed))


if __name__ == "__main__":
    main()
