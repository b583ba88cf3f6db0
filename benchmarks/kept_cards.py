"""What the bots do with the cards they keep at the setup: for each card, how often a player
dealt it keeps it, how often a player who kept it completes it, and the win share of those who
kept it against those who handed it back (an association, not an effect: the hands differ).
A card kept but rarely completed, whose keepers win less than those who hand it back, is one
the bots overvalue at the setup (benchmarks/README.md, Bot competence).

    python benchmarks/kept_cards.py [--players 3] [--policy planner] [--games 20000]
        [--seed 999] [--set CARD.FIELD=VALUE ...] [--workers 2]

Prints one row per card that is completed (Additional Resource cards are never kept in hand)."""

from __future__ import annotations

import argparse
import dataclasses
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from simcell.config.load import load_default_game
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_chunk


def _masks(args) -> tuple[np.ndarray, ...]:
    game, players, policy, seed, first, n = args
    chunk = play_chunk(game, players, seed, first, n, homogeneous(policy, players), total_games=first + n)
    pl = chunk.players
    return (pl["dealt_mask"].astype(np.uint64), pl["kept_mask"].astype(np.uint64),
            pl["completed_mask"].astype(np.uint64), pl["win_share"])


def kept_cards(game, players: int, policy: str, games: int, seed: int, workers: int) -> pd.DataFrame:
    parts = 8
    jobs = [(game, players, policy, seed, i * games // parts, games // parts) for i in range(parts)]
    with ProcessPoolExecutor(workers) as pool:
        got = list(pool.map(_masks, jobs))
    dealt, kept, done, win = (np.concatenate([g[i] for g in got]) for i in range(4))
    rows = []
    for card in sorted(game.cards, key=lambda c: c.id):
        if card.type == "additional_resource":
            continue
        bit = np.uint64(1) << np.uint64(card.id)
        d, k, c = (dealt & bit) != 0, (kept & bit) != 0, (done & bit) != 0
        rows.append({"card": card.name, "type": card.type, "hp": card.hp, "atp": card.atp,
                     "dealt": int(d.sum()), "kept_pct": 100 * k[d].mean(),
                     "completed_when_kept_pct": 100 * c[k].mean() if k.any() else np.nan,
                     "win_kept": win[k].mean() if k.any() else np.nan,
                     "win_handed_back": win[d & ~k].mean() if (d & ~k).any() else np.nan})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--policy", default="planner")
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=999)
    ap.add_argument("--set", action="append", default=[], metavar="CARD.FIELD=VALUE",
                    help='a changed card value, e.g. "ATP Synthase.hp=6"')
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    game = load_default_game()
    for item in args.set:
        key, value = item.split("=")
        name, field = key.rsplit(".", 1)
        card = next(c for c in game.cards if c.name == name)
        changed = dataclasses.replace(card, **{field: int(value)})
        game = dataclasses.replace(game, cards=tuple(changed if c.id == card.id else c for c in game.cards))
    table = kept_cards(game, args.players, args.policy, args.games, args.seed, args.workers)
    pd.set_option("display.width", 200)
    print(f"{args.players} players, {args.policy} in every seat, {args.games:,} games"
          + (f", {', '.join(args.set)}" if args.set else ""))
    print(table.round({"kept_pct": 0, "completed_when_kept_pct": 0, "win_kept": 3,
                       "win_handed_back": 3}).to_string(index=False))


if __name__ == "__main__":
    main()
