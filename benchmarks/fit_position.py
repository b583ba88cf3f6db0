"""Fit the search's position evaluator (simcell/policies/position.py) at each player count: states
sampled from planner games at several points, each seat's terms there, and the HP it finished
with; non-negative least squares of each seat's final HP above the table's mean on its terms above the
table's mean (what the search compares is one seat's position against its rivals', so what all
seats share cancels). Prints the fitted weights (registry.POSITION_AT_PLAYERS) and the share of
the spread of final margins left after the HP already earned that they explain, beside that of
the count's current weights (below zero: worse than no weights at all).

    python benchmarks/fit_position.py [--games 400] [--players 2 3 4 5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

from simcell.config.load import load_default_game
from simcell.kernel.scoring import final_scores
from simcell.play.game import PLAY_GAME
from simcell.policies.position import N_TERMS, position_terms
from simcell.policies.registry import ROLLOUT_PARAMS, builtin, game_loop, param_vector
from simcell.policies.user import no_user_policy
from simcell.runner.fields import homogeneous
from simcell.runner.games import scratch_states

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tests.support
from tests.support.stepping import game_in_progress  # noqa: E402

LEAF = [k for k in ROLLOUT_PARAMS if k.startswith("leaf_")]
POINTS = (0.1, 0.25, 0.4, 0.55, 0.7, 0.85)  # where in the game (share of its decisions) to sample


def sample(players: int, games: int, seed: int):
    """(terms [n, seat, N_TERMS], final HP [n, seat]) of states sampled from planner games."""
    field = homogeneous("planner", players)
    params = np.array(param_vector("rollout", None, players))
    game = load_default_game()
    terms, finals = [], []
    total = {2: 70, 3: 100, 4: 130, 5: 165}[players]  # about a game's policy decisions
    for g in range(games):
        for share in POINTS:
            found = game_in_progress(game, players, seed, g, field, int(share * total))
            if found is None:
                continue
            st, gt = found
            t = np.zeros((players, N_TERMS))
            for s in range(players):
                position_terms(st, gt, s, params, t[s])
            PLAY_GAME[game_loop(st.seating.policy)](st, gt, 0, 0, no_user_policy(), False, 0, True,
                                                    -1, *scratch_states(gt))
            final_scores(st, gt, st.final_hp, st.win_share, st.rank)
            terms.append(t)
            finals.append(st.final_hp.astype(float).copy())
    return np.array(terms), np.array(finals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--seed", type=int, default=31337)
    args = parser.parse_args()
    for players in args.players:
        terms, finals = sample(players, args.games, args.seed)
        # margins over the table: what every seat shares cancels
        x = terms - terms.mean(axis=1, keepdims=True)
        y = finals - finals.mean(axis=1, keepdims=True)
        y = (y - x[..., 0]).reshape(-1)  # the HP already earned count 1
        x = x[..., 1:].reshape(-1, N_TERMS - 1)
        w, _ = nnls(x, y)  # no weight below zero: more of a term is never a worse position
        row = dict(zip(builtin("rollout").layout, param_vector("rollout", None, players)))
        current = np.array([row[k] for k in LEAF])
        spread = ((y - 0) ** 2).sum()
        r2 = 1 - ((y - x @ w) ** 2).sum() / spread
        r2_now = 1 - ((y - x @ current) ** 2).sum() / spread
        print(f"{players}p ({len(terms)} states): "
              + ", ".join(f"{k}={v:.3f}" for k, v in zip(LEAF, w))
              + f"; margin left explained {r2:.3f} (current weights {r2_now:.3f})", flush=True)


if __name__ == "__main__":
    main()
