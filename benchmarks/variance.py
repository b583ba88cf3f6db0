"""How many fewer games the variance reductions need: for each player count of a run directory,
the games the plain and the reduced figures need for the same interval width (their variance
ratio, on the same games), for the seats, the card types and the cards.

- Seat adjustment (reports/cards.seat_adjusted): a card's or type's opening-hand effect less the
  part the dealt player's seat explains, fitted on the other half of the blocks.
- Seats: a seat's win share is itself the seat's figure: no seat adjustment applies.
- What else the records could adjust for (--covariates): a player's win share regressed on its
  seat and, besides, on what was dealt or drawn independently of its own cards (its opening
  hand, the goals in play, each round's event), ridge fits cross-fitted over two halves of the
  games; the ratio of the seat-only residual variance to each richer fit's says how many fewer
  games that covariate would need on top of the seat adjustment.
- Pairing (simcell compare, sweep, tune's holdout, the studio): the variance reduction
  1/(1 − ρ) of a paired difference over two unpaired runs, from a comparison folder's
  pairing table, when one is given (--compare).

    python benchmarks/variance.py RUN_DIR [--compare COMPARE_DIR] [--covariates]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports import cards as cs
from simcell.reports.card_table import card_sums, card_table
from simcell.reports.data import RunData


def ratios(run: RunData) -> pd.DataFrame:
    cards = card_table(run)
    ids, types = cards["id"].to_numpy(), cards["type"].to_numpy()
    rows = []
    for seg in run.segments:
        sums = card_sums(run, seg)
        for figure, column in (("win share", 0), ("final HP", 1)):
            plain_n, adj_n = cs.Numerators.plain(sums.opening[..., column]), sums.numerators(column)
            pc, ac = (cs.card_effects(n, sums.dealt, ids, types) for n in (plain_n, adj_n))
            pt, at = (cs.type_effects(n, sums.dealt, ids, types) for n in (plain_n, adj_n))
            card_ratio = (pc.contrast_se / ac.contrast_se) ** 2
            type_ratio = (pt.gap_se / at.gap_se) ** 2
            for what, r in (("cards (contrast)", card_ratio), ("card types (gap)", type_ratio)):
                r = r[np.isfinite(r)]
                rows.append({"players": seg.players, "field": seg.field_name, "figure": figure,
                             "what": what, "games": seg.games, "median": np.median(r),
                             "lowest": r.min(), "highest": r.max()})
        rows.append({"players": seg.players, "field": seg.field_name, "figure": "win share",
                     "what": "seats", "games": seg.games, "median": 1.0, "lowest": 1.0, "highest": 1.0})
    return pd.DataFrame(rows)


def _one_hot(codes: np.ndarray) -> np.ndarray:
    codes = codes.astype(np.int64)
    out = np.zeros((len(codes), int(codes.max()) + 1))
    out[np.arange(len(codes)), codes] = 1.0
    return out


def _cross_fitted_residual(x: np.ndarray, y: np.ndarray, fold: np.ndarray, ridge: float) -> np.ndarray:
    x = np.hstack([x, np.ones((len(y), 1))])
    out = np.empty_like(y)
    for f in (0, 1):
        fit, held = fold != f, fold == f
        a = x[fit]
        beta = np.linalg.solve(a.T @ a + ridge * np.eye(a.shape[1]), a.T @ y[fit])
        out[held] = y[held] - x[held] @ beta
    return out


def covariate_ratios(run: RunData, max_games: int = 200_000, ridge: float = 10.0) -> pd.DataFrame:
    """For each homogeneous segment: the variance of a player's win share less its seat's part,
    over that less each richer fit (each fitted on the other half of the games)."""
    rows = []
    for seg in run.segments:
        players = run.records("players", seg, ["game", "seat", "win_share", "dealt_mask"])
        players = players[players["game"] < players["game"].min() + max_games]
        event_cols = [c for c in run.record_columns("games", seg) if c.startswith("event_") and c[6:].isdigit()]
        goal_cols = [c for c in run.record_columns("games", seg) if c.startswith("goal_") and c[5:].isdigit()]
        games = run.records("games", seg, ["game"] + event_cols + goal_cols)
        t = players.merge(games, on="game").sort_values(["game", "seat"])
        y = t["win_share"].to_numpy(float)
        seat = _one_hot(t["seat"].to_numpy())
        masks = t["dealt_mask"].to_numpy().astype(np.uint64)
        hand = ((masks[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).astype(float)
        hand = hand[:, hand.any(axis=0)]

        def by_seat(m: np.ndarray) -> np.ndarray:
            return (seat[:, :, None] * m[:, None, :]).reshape(len(y), -1)

        goals = sum(_one_hot(t[c].to_numpy()) for c in goal_cols) if goal_cols else np.zeros((len(y), 0))
        events = np.hstack([_one_hot(t[c].to_numpy()) for c in event_cols]) if event_cols else np.zeros((len(y), 0))
        fold = t["game"].to_numpy() % 2
        base = _cross_fitted_residual(seat, y, fold, ridge).var()
        for what, extra in (("opening hand", hand), ("opening hand by seat", by_seat(hand)),
                            ("goals in play by seat", by_seat(goals)),
                            ("each round's event by seat", by_seat(events))):
            if extra.shape[1] == 0:
                continue
            r = _cross_fitted_residual(np.hstack([seat, extra]), y, fold, ridge).var()
            rows.append({"players": seg.players, "field": seg.field_name, "games": len(y) // seg.players,
                         "covariate": what, "ratio": base / r})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--compare", type=Path, help="a simcell compare folder: its pairing's 1/(1 − ρ)")
    ap.add_argument("--covariates", action="store_true",
                    help="also what the opening hand, goals and events would add to the seat adjustment")
    args = ap.parse_args()
    table = ratios(RunData(args.run))
    print(f"{args.run}: games needed without / with the seat adjustment, same width "
          "(variance ratio; median, lowest and highest over the cards or types)")
    for r in table.itertuples():
        print(f"  {r.players}p · {r.field:<10} {r.what:<17} {r.figure:<9} {r.games:>10,} games: "
              f"×{r.median:.2f} (×{r.lowest:.2f} to ×{r.highest:.2f})")
    if args.covariates:
        print("beyond the seat adjustment, games needed without / with each covariate besides the seat "
              "(win share, cross-fitted ridge; above 1: it would help)")
        for r in covariate_ratios(RunData(args.run)).itertuples():
            print(f"  {r.players}p · {r.field:<10} {r.covariate:<27} {r.games:>9,} games: ×{r.ratio:.3f}")
    if args.compare:
        pairing = pd.read_csv(args.compare / "tables" / "pairing.csv")
        for r in pairing.itertuples():
            print(f"  {r.players}p · {r.field:<10} pairing (compare)               "
                  f"ρ = {r.rho:.3f}: ×{r.variance_reduction:.2f} fewer games than two unpaired runs")


if __name__ == "__main__":
    main()
