"""Time the legality generator alone: nanoseconds per `phase_one_legal` call on Phase 1 States
captured from real games, with the time to load each State subtracted.

Timing whole games cannot split the turn loop by step (every rules function is inlined into one
compiled function); this replays the same few thousand States through `phase_one_legal` in a
loop, in the order the games met them (so branches are as predictable as in play), and
subtracts a baseline loop that loads each State and does nothing else. With `--variant MODULE`
it times a candidate generator (a module with its own `phase_one_legal(st, gt)`, importable
from PYTHONPATH) against the kernel's on the same States, checks that it lists exactly the same
codes in the same order, and prints both; identical builds differ here by up to 10% on this VM,
so compare the best of several repeats.

    python benchmarks/legal.py [--policy random] [--games 12] [--players 5] [--repeat 5]
                               [--passes 300] [--variant MODULE]

Compiling the loops takes about a minute (they are not cached).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import numba
import numpy as np

from simcell.config.load import load_default_game
from simcell.kernel.legal import phase_one_legal
from simcell.kernel.state import G_PHASE, PH_OVER, PH_PLACE
from simcell.runner.fields import homogeneous
from simcell.runner.games import tables_for

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tests.support
from tests.support.stepping import game_in_progress, next_decision  # noqa: E402

# the State arrays phase_one_legal reads (a variant that reads others must add them here)
LEGAL_INPUTS = ("g", "grey_round", "own_left", "spot_occ", "stock", "hand", "slot_card", "supply",
                "disks_free", "ves_owner", "ves_origin", "ves_load", "ves_golgi", "discount",
                "markers_left", "goal_nmark", "goal_mark")


def capture(policy: str, games: int, players: int) -> tuple[list[tuple], object, object]:
    """The LEGAL_INPUTS before every Phase 1 policy decision of `games` games (game indices
    0 ..), the GameTables, and a State to load them into."""
    game = load_default_game()
    seating = homogeneous(policy, players)
    states = []
    for g in range(games):
        found = game_in_progress(game, players, 1, g, seating, 0)
        if found is None:
            continue
        st, gt = found
        while st.g[G_PHASE] != PH_OVER:
            if st.g[G_PHASE] == PH_PLACE:
                states.append(tuple(np.copy(getattr(st, k)).reshape(-1) for k in LEGAL_INPUTS))
            try:
                next_decision(st, gt, seating=seating)
            except RuntimeError:  # the game ended without another policy decision
                break
    return states, tables_for(game, players), st


@numba.njit(inline="always", _nrt=False)
def _put(dst, src):
    flat = dst.reshape(src.size)
    for k in range(src.size):
        flat[k] = src[k]


def _loader():
    """load(st, packs, i): copy captured State i's LEGAL_INPUTS into the working State."""
    lines = ["def load(st, packs, i):"]
    lines += [f"    _put(st.{k}, packs[{j}][i])" for j, k in enumerate(LEGAL_INPUTS)]
    scope = {"_put": _put}
    exec("\n".join(lines), scope)
    return numba.njit(inline="always", _nrt=False)(scope["load"])


def _timer(load, legal):
    @numba.njit(_nrt=False)
    def passes(st, gt, packs, repeat):
        total = 0
        for _ in range(repeat):
            for i in range(packs[0].shape[0]):
                load(st, packs, i)
                total += legal(st, gt)
        return total

    return passes


@numba.njit(inline="always", _nrt=False)
def _nothing(st, gt):
    return st.g[0]


def _mismatches(st, gt, packs, load, a, b) -> int:
    @numba.njit
    def compare(st, gt, packs):
        bad = 0
        for i in range(packs[0].shape[0]):
            load(st, packs, i)
            na = a(st, gt)
            first = st.workspace.legal[:na].copy()
            st.workspace.legal[:] = -1  # a generator that writes nothing must not pass on the first's list
            nb = b(st, gt)
            if na != nb or not np.array_equal(first, st.workspace.legal[:nb]):
                bad += 1
        return bad

    return compare(st, gt, packs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="random")
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--passes", type=int, default=300, help="passes over the States per timing")
    parser.add_argument("--variant", help="module with a candidate phase_one_legal(st, gt)")
    args = parser.parse_args()

    states, gt, st = capture(args.policy, args.games, args.players)
    packs = tuple(np.stack([s[j] for s in states]) for j in range(len(LEGAL_INPUTS)))
    load = _loader()
    builds = {"kernel": phase_one_legal}
    if args.variant:
        builds[args.variant] = importlib.import_module(args.variant).phase_one_legal
    timers = {"load only": _timer(load, _nothing)} | {k: _timer(load, f) for k, f in builds.items()}
    t = time.perf_counter()
    counts = {k: f(st, gt, packs, 1) for k, f in timers.items()}
    print(f"{len(states):,} Phase 1 States of {args.games} games ({args.policy} in every seat, "
          f"{args.players} players); mean legal actions {counts['kernel'] / len(states):.1f}; "
          f"compiled in {time.perf_counter() - t:.0f} s")
    if args.variant:
        bad = _mismatches(st, gt, packs, load, phase_one_legal, builds[args.variant])
        print(f"{args.variant}: {'the same lists' if bad == 0 else f'{bad:,} States listed differently'}")
    best = {k: float("inf") for k in timers}
    for _ in range(args.repeat):
        for k, f in timers.items():
            t = time.perf_counter()
            f(st, gt, packs, args.passes)
            best[k] = min(best[k], (time.perf_counter() - t) / (args.passes * len(states)) * 1e9)
    base = best.pop("load only")
    print(f"{'generator':>24} {'ns a call':>10}   (best of {args.repeat}; loading a State, "
          f"{base:.0f} ns, subtracted)")
    for k, ns in best.items():
        print(f"{k:>24} {ns - base:>10.0f}")


if __name__ == "__main__":
    main()
