"""Sanity figures of the default 5-player field (configs/5p.toml: planner in every seat), each
printed beside the range we consider plausible for competent play of the reconstructed card set
and why. A figure outside its range points at a policy artefact, not at the card set.

    python benchmarks/sanity.py [--games N]
"""

from __future__ import annotations

import argparse

import numpy as np

from simcell.config.load import load_default_game
from simcell.vocabulary import COMPLETED_TYPES
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_chunk

SEED = 20261130


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--policy", default="planner")
    args = parser.parse_args()
    players = 5
    chunk = play_chunk(load_default_game(), players, SEED, 0, args.games, homogeneous(args.policy, players))
    p = chunk.players
    n = args.games
    hp = p["final_hp"].reshape(n, players)
    win = hp.max(axis=1)
    by_type = p["completed_by_type"].sum(axis=0).astype(float)
    share = by_type / by_type.sum()
    # the deck holds 10 enzymes, 6+6 hormones, 5+5 receptors, 7 detox (of 39 completable cards)
    deck_share = np.array([10, 6, 6, 5, 5, 7]) / 39
    print(f"default 5-player field: {args.policy} in every seat, {n:,} games, seed {SEED}")
    print("completions by card type (share of all completions; deck share in brackets):")
    for t, name in enumerate(COMPLETED_TYPES):
        print(f"  {name:<18} {100 * share[t]:5.1f}%   [{100 * deck_share[t]:4.1f}%]")
    print("  plausible: every type between a third and twice its deck share; a type near 0 means "
          "the bots never plan for it")
    print(f"cards completed per player: {p['completed_by_type'].sum(axis=1).mean():.2f}"
          "   (plausible 3-8: 13 rounds x 2-3 placements, 2-4 placements per card)")
    print(f"winning HP: mean {win.mean():.1f}, sd {win.std(ddof=1):.1f}; all players: mean "
          f"{hp.mean():.1f}   (plausible winner 20-45 HP at 5 players)")
    print(f"margin of victory: mean {(win - np.sort(hp, axis=1)[:, -2]).mean():.1f} HP; "
          f"tie rate {100 * chunk.games['tie'].mean():.1f}%")
    exhausts = p["flasks_exhausted"].mean()
    print(f"placements wasted per player-game: {exhausts:.2f} exhausts "
          f"(of {13 * 2 + 13} placements; plausible < 3), {p['vesicles_lost'].mean():.2f} vesicles lost "
          f"to displacement (plausible 0.2-2 at 5 players: 10 disks, 3 Golgi locations)")
    left = p["vesicles_left"].mean()
    print(f"vesicles left on the board at the end: {left:.2f} per player (plausible < 1)")


if __name__ == "__main__":
    main()
