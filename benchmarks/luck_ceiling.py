"""The most any luck adjustment scored within the game could remove: each deal played twice,
sharing everything dealt at setup (the hands, the first Card Area, the goals, the events in
play) and differing in every later chance (the deck's order after the deal, the event order,
reshuffles, the search's deals). Over the pairs, the covariance of a player's seat-adjusted
outcome is the variance of its expectation given the deal; its ratio to the whole variance is
the share the deal explains. A perfect value function scoring every later chance (AIVAT's
luck terms) would leave that share and nothing else, so whole / deal-explained is the ceiling
of its variance reduction over the seat adjustment the report already makes.

The shipped kernel draws the hands and the later deck from one shuffle, so this benchmark builds
a copy of the package with two source edits (deal streams keyed by the seed with its lowest
bit cleared; the deck reshuffled after the deal from a stream keyed by the whole seed) in a
cache folder of its own, and plays seeds 2S and 2S + 1 there. The copy is never imported by
simcell itself; its first run compiles the kernel cold (a few minutes).

    python benchmarks/luck_ceiling.py [--policy planner] [--players 5] [--deals 20000]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEAL_PURPOSES = "(1, 2, 3, 6, 7)"  # event removal, goal order, deck order, epigenetic deal, detox removal

EDITS = {
    "simcell/kernel/chance.py": [(
        '    h = splitmix64(np.uint64(seed))\n    h = splitmix64(h ^ np.uint64(players))',
        '    sd = np.uint64(seed)\n'
        '    if purpose == 1 or purpose == 2 or purpose == 3 or purpose == 6 or purpose == 7:\n'
        '        sd = sd & ~np.uint64(1)\n'
        '    h = splitmix64(sd)\n    h = splitmix64(h ^ np.uint64(players))',
    )],
    "simcell/kernel/setup.py": [
        ("    CHANCE_POLICY,\n    CHANCE_SETUP_SHUFFLE,",
         "    CHANCE_POLICY,\n    CHANCE_RESHUFFLE,\n    CHANCE_SETUP_SHUFFLE,"),
        ("    st.g[G_DISCARD_N] = 0\n    # 2. epigenetic cards",
         "    st.g[G_DISCARD_N] = 0\n"
         "    nd = st.g[G_DECK_N]\n"
         "    for i in range(nd):\n"
         "        ids[i] = st.deck[nd - 1 - i]\n"
         "    keyed_shuffle(_key(st, gt, CHANCE_RESHUFFLE, 1000), ids, nd, st.scratch_hash)\n"
         "    set_deck(st, ids, nd)\n"
         "    # 2. epigenetic cards"),
    ],
}


def build() -> Path:
    """A copy of the package with the edits, in a folder named by the sources' hash (so its
    numba cache is reused while the sources stay the same)."""
    src = ROOT / "simcell"
    digest = hashlib.sha256()
    for f in sorted(src.rglob("*")):
        if f.is_file() and "__pycache__" not in f.parts:
            digest.update(str(f.relative_to(src)).encode() + f.read_bytes())
    home = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "simcell" / "luck-ceiling"
    out = home / digest.hexdigest()[:16]
    if (out / "simcell").is_dir():
        return out
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(src, out / "simcell", ignore=shutil.ignore_patterns("__pycache__"))
    for rel, edits in EDITS.items():
        path = out / rel
        text = path.read_text()
        for old, new in edits:
            if text.count(old) != 1:
                shutil.rmtree(out)
                sys.exit(f"luck_ceiling: {rel} no longer holds the line this benchmark edits; "
                         "update EDITS to the kernel's setup")
            text = text.replace(old, new)
        path.write_text(text)
    return out


CHILD = """
import sys
from concurrent.futures import ProcessPoolExecutor
import numpy as np
from simcell.config.load import PolicyField, load_default_game
from simcell.runner.fields import seating
from simcell.runner.games import play_chunk

def chunk(args):
    policy, players, seed, first, n = args
    f = PolicyField(name="f", policy=policy, params=())
    p = play_chunk(load_default_game(), players, seed, first, n, seating(f, players)).players
    return p["game"].astype(np.int64), p["seat"].astype(np.int64), p["win_share"].astype(float), p["final_hp"].astype(float), p["dealt_mask"].astype(np.int64)

if __name__ == "__main__":
    policy, players, seed, n, workers, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    step = -(-n // workers)
    jobs = [(policy, players, seed, i, min(step, n - i)) for i in range(0, n, step)]
    with ProcessPoolExecutor(len(jobs)) as ex:
        parts = list(ex.map(chunk, jobs))
    g, s, w, h, d = (np.concatenate(x) for x in zip(*parts))
    o = np.lexsort((s, g))
    np.savez(out, game=g[o], seat=s[o], win=w[o], hp=h[o], dealt=d[o])
"""


def play(copy: Path, policy: str, players: int, seed: int, deals: int, workers: int) -> dict:
    out = copy / f"pair-{policy}-{players}-{seed}-{deals}.npz"
    env = dict(os.environ, PYTHONPATH=str(copy))
    subprocess.run([sys.executable, "-c", CHILD, policy, str(players), str(seed), str(deals),
                    str(workers), str(out)], check=True, env=env, cwd=copy)
    data = dict(np.load(out))
    out.unlink()
    return data


def ceiling(a: np.ndarray, b: np.ndarray, seat: np.ndarray, players: int, rng) -> tuple[float, float, float, float]:
    """(seat-adjusted variance, covariance across the pair, ceiling ratio, its 95% bootstrap
    interval low, high) over deals."""
    ra, rb = a.copy(), b.copy()
    for k in range(players):
        m = seat == k
        mu = (a[m].mean() + b[m].mean()) / 2
        ra[m] -= mu
        rb[m] -= mu
    var, cov = (ra.var() + rb.var()) / 2, float(np.mean(ra * rb))
    prod = (ra * rb).reshape(-1, players).sum(1)
    sq = ((ra ** 2 + rb ** 2) / 2).reshape(-1, players).sum(1)
    boots = [sq[i].sum() / prod[i].sum() for i in (rng.integers(0, len(prod), len(prod)) for _ in range(400))]
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return var, cov, var / cov, lo, hi


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policy", default="planner")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1000, help="S: the pair plays seeds 2S and 2S + 1")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    start = time.perf_counter()
    copy = build()
    first = play(copy, args.policy, args.players, 2 * args.seed, args.deals, args.workers)
    second = play(copy, args.policy, args.players, 2 * args.seed + 1, args.deals, args.workers)
    if not (np.array_equal(first["game"], second["game"]) and np.array_equal(first["seat"], second["seat"])):
        sys.exit("luck_ceiling: the two plays' records do not line up game by game")
    if not np.array_equal(first["dealt"], second["dealt"]):
        sys.exit("luck_ceiling: the pair's opening hands differ: the edits no longer share the deal")
    same = np.mean(first["hp"] == second["hp"])
    same_hands = f"the same opening hands; {same:.1%} of players' final HP the same in both"
    rng = np.random.default_rng(1)
    print(f"{args.policy}, {args.players} players, {args.deals:,} deals each played twice ({same_hands}; "
          f"{time.perf_counter() - start:.0f} s):")
    for name, key in (("win share", "win"), ("final HP", "hp")):
        var, cov, ratio, lo, hi = ceiling(first[key], second[key], first["seat"], args.players, rng)
        print(f"  {name:<9}: seat-adjusted variance {var:.4f}; explained by the deal {cov:.4f} "
              f"({cov / var:.1%}); ceiling of luck scoring ×{ratio:.2f} (95% ×{lo:.2f} to ×{hi:.2f})")


if __name__ == "__main__":
    main()
