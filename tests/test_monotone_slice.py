"""A fast slice of benchmarks/monotone.py: at 3 players under the planner, one card of each
completed type the old bots misjudged made 2 HP better, on the same games as the shipped set.
Being dealt the better card must be worth measurably more (the change wholly above zero), and no
change may lie wholly below zero. On the bots that handed back their most valuable dealt card
this failed: the Detoxification and receptor cards' changes came out at or below zero."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import monotone  # noqa: E402

CARDS = ["Alcohol Dehydrogenase", "Insulin Receptor", "Glucocorticoid Receptor", "Lipase"]
GAMES = 20_000


@pytest.fixture(scope="module")
def cells():
    return monotone.run([3], ["planner"], CARDS, GAMES, 0, 2, None, quiet=True)


def test_a_card_made_two_hp_better_is_worth_more_when_dealt(cells):
    hp = cells[cells["change"] == "hp+2"].set_index("card")
    assert sorted(hp.index) == sorted(CARDS)
    assert (hp["open_hand_win_pp_low"] > 0).all(), hp[["open_hand_win_pp_diff", "open_hand_win_pp_low"]]
    assert (hp["hp_above_table_low"] > 0).all(), hp[["hp_above_table_diff", "hp_above_table_low"]]


def test_no_better_card_is_worth_less(cells):
    bad = monotone.below_zero(cells)
    assert bad.empty, monotone.summary(cells)
    assert set(cells["change"]) == {"hp+2", "atp-1"}


def test_a_fall_counts_unless_fresh_games_clear_it():
    """A cell below zero on the screen (or without an interval) counts against the mark until it
    is played again, and after that only if it is below zero again; a cell above zero never
    counts."""
    import numpy as np
    import pandas as pd

    df = pd.DataFrame({"open_hand_win_pp_high": [-0.5, -0.2, 1.0, -1.0, np.nan],
                       "replay_high": [0.8, -0.1, np.nan, np.nan, 0.5]})
    assert list(monotone.below_zero(df).index) == [0, 1, 3, 4]  # no interval: not shown above
    assert list(monotone.worse(df).index) == [1, 3]
    assert list(monotone.worse(df.drop(columns="replay_high")).index) == [0, 1, 3, 4]
