"""What the studio page shows: the compare report's paired tables (tools/compare/report.py) over the
blocks that both the baseline and the edit have finished, block b against block b (the same
games), as plain data for the page. The intervals are the delete-a-block jackknife over those
blocks, so they narrow as blocks arrive; they are watched intervals (docs/method.md §8): valid
however often the designer looks, at every block up to the last, so stopping at the first one
that clears the band keeps its stated error rate. The cards that moved are the report's (BH
over every card, the interval wholly outside the band)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from simcell.reports.changes import (
    card_changes,
    correlation,
    headline_changes,
    source_changes,
    type_changes,
)
from simcell.reports.paired import Sums
from simcell.vocabulary import CARD_TYPE_LABELS

MIN_BLOCKS = 4  # a watched interval keeps its error rate from four blocks (the jackknife: df 3)
CARD_FIGURES = ("open_hand_win_pp", "contrast_pp", "pick_rate_pct", "completion_pct")


def stack(blocks: dict[int, Sums], order: list[int]) -> Sums:
    """The per-block sums of these blocks, in this order, as one Sums (blocks x ...)."""
    return {k: np.concatenate([blocks[b][k] for b in order]) for k in blocks[order[0]]}


def _rows(df: pd.DataFrame, columns: list[str]) -> list[dict]:
    out = df[columns].replace({np.nan: None})
    return [{k: (v.item() if isinstance(v, np.generic) else v) for k, v in r.items()}
            for r in out.to_dict("records")]


def paired_figures(base: dict[int, tuple[Sums, np.ndarray]], edit: dict[int, tuple[Sums, np.ndarray]],
                   *, players: int, field: str, cards: pd.DataFrame, bands: dict,
                   edited_cards: list[str], edited_types: list[str] = (), looks: int = 1) -> dict | None:
    """The paired figures over the blocks both have finished (block -> (sums, final HP by
    game)); None before MIN_BLOCKS. Each card type's gap against the average card in both sets
    (the figure the run report's verdict uses), its types edited marked as `edited`. `looks`:
    the blocks of the whole edit, each a look at its intervals."""
    order = sorted(set(base) & set(edit))
    if len(order) < MIN_BLOCKS:
        return None
    sa, sb = stack({b: base[b][0] for b in order}, order), stack({b: edit[b][0] for b in order}, order)
    hp_a = np.concatenate([base[b][1] for b in order])
    hp_b = np.concatenate([edit[b][1] for b in order])
    seg = SimpleNamespace(players=players, field_name=field)
    head = headline_changes(seg, sa, sb, True, bands, looks)
    # the game-shape rows share one unit column in the report ("HP, HP, %"): one unit a row here
    shape = head["unit"].str.contains(",")
    head.loc[shape, "unit"] = [u.split(", ")[i] for i, u in enumerate(head.loc[shape, "unit"])]
    sources = source_changes(seg, sa, sb, True, looks)
    card = card_changes(seg, sa, sb, True, cards, bands["card_open_hand_pp"], looks)
    types = type_changes(seg, sa, sb, True, cards, bands["card_type_pp"], looks)
    types["label"] = types["type"].map(CARD_TYPE_LABELS)
    types["edited"] = types["type"].isin(list(edited_types))
    types["band"] = bands["card_type_pp"]
    mine = card[card["name"].isin(edited_cards)]
    moved = card[card["moved"] & ~card["name"].isin(edited_cards)]
    card_cols = ["name", "type"] + [f"{f}_{s}" for f in CARD_FIGURES
                                    for s in ("A", "B", "diff", "low", "high")] + ["moved"]
    return {
        "blocks": len(order),
        "looks": looks,
        "games": int(sa["games"].sum()),
        "rho": correlation(hp_a, hp_b),
        "headline": _rows(head, ["figure", "unit", "A", "B", "difference", "low", "high", "band", "moved"]),
        "sources": _rows(sources, ["source", "A", "B", "difference", "low", "high"]),
        "types": _rows(types, ["type", "label", "edited", "gap_pp_A", "gap_pp_low_A", "gap_pp_high_A",
                               "verdict_A", "gap_pp_B", "gap_pp_low_B", "gap_pp_high_B", "verdict_B",
                               "gap_pp_diff", "gap_pp_low", "gap_pp_high", "moved", "band"]),
        "edited": _rows(mine, card_cols),
        "moved": _rows(moved, card_cols),
    }
