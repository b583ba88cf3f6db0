"""How many fewer games the variance reductions need: for each player count of a run directory,
the games the plain and the reduced figures need for the same interval width (their variance
ratio, on the same games), for the seats, the card types and the cards.

- Seat adjustment (reports/cards.seat_adjusted): a card's or type's opening-hand effect less the
  part the dealt player's seat explains, fitted on the other half of the blocks.
- Seats: a seat's win share is itself the seat's figure: no seat adjustment applies.
- Pairing (simcell compare, sweep, tune's holdout, the studio): the variance reduction
  1/(1 − ρ) of a paired difference over two unpaired runs, from a comparison folder's
  pairing table, when one is given (--compare).

    python benchmarks/variance.py RUN_DIR [--compare COMPARE_DIR]
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--compare", type=Path, help="a simcell compare folder: its pairing's 1/(1 − ρ)")
    args = ap.parse_args()
    table = ratios(RunData(args.run))
    print(f"{args.run}: games needed without / with the seat adjustment, same width "
          "(variance ratio; median, lowest and highest over the cards or types)")
    for r in table.itertuples():
        print(f"  {r.players}p · {r.field:<10} {r.what:<17} {r.figure:<9} {r.games:>10,} games: "
              f"×{r.median:.2f} (×{r.lowest:.2f} to ×{r.highest:.2f})")
    if args.compare:
        pairing = pd.read_csv(args.compare / "tables" / "pairing.csv")
        for r in pairing.itertuples():
            print(f"  {r.players}p · {r.field:<10} pairing (compare)               "
                  f"ρ = {r.rho:.3f}: ×{r.variance_reduction:.2f} fewer games than two unpaired runs")


if __name__ == "__main__":
    main()
