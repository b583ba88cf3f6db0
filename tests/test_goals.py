"""The Goals section (issue 69): which goal card is claimed first and by which seat, each goal's
HP by seat, and what one Laureates visit is worth. The first claims are counted again by hand
from the records and add up (goals to 100% of games, seats to 100% of each goal's); the goals'
HP add up to the seats' goal HP; the Laureates deviation is paired game for game with the run
(a null deviation differs in no game), its worth matches a hand computation, and it follows a
planted change in what the Laureates pays."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simcell import api
from simcell.reports.data import RunData
from simcell.reports.laureates import laureates_table, paired_sums, worth
from simcell.reports.sections import goals
from simcell.tools.laureates import run_laureates
from simcell.vocabulary import LAUREATES_FOLDER

CONFIG = """
[run]
players = 5
games = 2_000
seed = 11

[[field]]
name = "planner"
policy = "planner"

[report]
blocks = 50
{extra}
"""


def _run(tmp_path_factory, name: str, extra: str = "") -> RunData:
    folder = tmp_path_factory.mktemp(name)
    config = folder / f"{name}.toml"
    config.write_text(CONFIG.format(extra=extra))
    played = api.play(config, out=folder / "run", rungs=False, report=False, quiet=True)
    return RunData(played.root)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> RunData:
    return _run(tmp_path_factory, "goals")


@pytest.fixture(scope="module")
def section(run: RunData):
    return goals.build(run)


def _table(section, name: str) -> pd.DataFrame:
    return next(t.data for t in section.tables if t.name == name)


def test_first_claims_add_up_and_match_a_count_by_hand(run: RunData, section) -> None:
    first = _table(section, "goals_first")
    assert first["claimed_first_pct"].sum() == pytest.approx(100.0)
    seats = [f"by_seat_{s}_pct" for s in range(5)]
    claimed = first[(first["claimed_first_pct"] > 0) & (first["goal"] != goals.NONE)]
    assert len(claimed) >= 1
    assert np.allclose(claimed[seats].sum(axis=1), 100.0)
    # by hand: each game's earliest marker (one Laureates spot: one marker a round at most)
    df = pd.read_parquet(run.root / "players").sort_values(["game", "seat"])
    names = {g["id"]: g["name"] for g in run.game["goals"]}
    found = []
    for _, part in df.groupby("game"):
        marks = [(r[f"marker_round_{i}"], names[i], r["seat"]) for _, r in part.iterrows()
                 for i in names if r[f"marker_order_{i}"] == 1]
        found.append(min(marks)[1:] if marks else (goals.NONE, -1))
    hand = pd.DataFrame(found, columns=["goal", "seat"])
    for _, row in first.iterrows():
        mine = hand[hand["goal"] == row["goal"]]
        assert row["claimed_first_pct"] == pytest.approx(100 * len(mine) / len(hand))
        for s in range(5):
            if len(mine) and row["goal"] != goals.NONE:
                assert row[f"by_seat_{s}_pct"] == pytest.approx(100 * (mine["seat"] == s).mean())


def test_the_goals_hp_add_up_to_each_seats_goal_hp(run: RunData, section) -> None:
    hp = _table(section, "goals_hp")
    df = pd.read_parquet(run.root / "players")
    by_seat = hp.groupby("seat")[["marker_hp", "bonus_hp"]].sum()
    seat_means = df.groupby("seat")[["hp_goal_marker", "hp_goal_bonus"]].mean()
    assert np.allclose(by_seat["marker_hp"], seat_means["hp_goal_marker"])
    assert np.allclose(by_seat["bonus_hp"], seat_means["hp_goal_bonus"])


def test_a_null_deviation_differs_in_no_game(run: RunData, tmp_path) -> None:
    """skip_laureates = 0: the deviation's pool plays exactly the run's games, so every paired
    difference is exactly 0 (the pairing the Laureates figure rests on)."""
    plays = api.plays(quiet=True)
    plan = run_laureates(run.root / "config.toml", tmp_path, plays, skip=0.0)
    dev = RunData(tmp_path / plan["runs"][0]["run"])
    sums, n = paired_sums(run, run.segments[0], dev)
    assert n == 2_000 and sums["games"].sum() == n
    for c in ("win_share", "final_hp", "laureates_taken"):
        assert np.array_equal(sums[f"skip_{c}"], sums[f"run_{c}"]), c


def test_the_laureates_worth_matches_a_hand_computation(run: RunData) -> None:
    table, why = laureates_table(run)
    assert table is not None, why
    every = table[table["seat"] == "all"].iloc[0]
    base = pd.read_parquet(run.root / "players")
    dev = pd.read_parquet(run.root / LAUREATES_FOLDER / "5p-skip" / "players")
    skip = dev[dev["player"] == 0].merge(base, on=["game", "seat"], suffixes=("_skip", "_run"))
    assert len(skip) == 2_000 and (skip["laureates_taken_skip"] == 0).all()
    visits = (skip["laureates_taken_run"] - skip["laureates_taken_skip"]).sum()
    lost_win = (skip["win_share_run"] - skip["win_share_skip"]).sum()
    lost_hp = (skip["final_hp_run"] - skip["final_hp_skip"]).sum()
    assert every["visit_win_pp"] == pytest.approx(100 * lost_win / visits)
    assert every["visit_hp"] == pytest.approx(lost_hp / visits)
    assert every["visits_per_game"] == pytest.approx(skip["laureates_taken_run"].mean())
    # giving the Laureates up costs: its interval lies above 0
    assert every["visit_hp_low"] > 0 and every["visit_win_pp_low"] > 0


def test_the_laureates_worth_follows_what_the_laureates_pays(run: RunData, tmp_path_factory) -> None:
    """Planted: the first marker on a goal card worth 8 HP instead of 3 makes a visit worth
    more HP to the player who gives it up."""
    rich = _run(tmp_path_factory, "rich", "\n[overrides.board.goals]\nfirst_marker_hp = 8\n")
    shipped = worth(paired_sums(run, run.segments[0], RunData(run.root / LAUREATES_FOLDER / "5p-skip"))[0])
    planted, _ = laureates_table(rich)
    planted = planted[planted["seat"] == "all"].iloc[0]
    assert planted["visit_hp_low"] > shipped["visit_hp_high"]


def test_the_findings_name_the_first_goal_its_seat_and_a_visits_worth(run: RunData, section) -> None:
    """The findings' goal sentence reads the Goals section's tables: the goal most often claimed
    first, the seat that places it most, a visit's worth as the table prints it; a seat planted
    as the one that claims names that seat."""
    from simcell.reports.estimates import interval_text
    from simcell.reports.sections.summary import goal_sentence
    first, worth = _table(section, "goals_first"), _table(section, "laureates_worth")
    p = int(first["players"].iloc[0])
    seats = pd.DataFrame({"players": [p], "field": [first["field"].iloc[0]], "seat": [0], "hp_above_table": [1.0]})
    [sentence] = goal_sentence(first, worth, seats)
    top = first.sort_values("claimed_first_pct", ascending=False).iloc[0]
    assert f"goes on {top['goal']} in {top['claimed_first_pct']:.1f}%" in sentence
    every = worth[worth["seat"].astype(str) == "all"].iloc[0]
    assert interval_text(every["visit_win_pp"], every["visit_win_pp_low"], every["visit_win_pp_high"]) in sentence
    planted = first.copy()
    cols = [f"by_seat_{s}_pct" for s in range(p)]
    planted[cols] = 0.0
    planted["by_seat_1_pct"] = 100.0
    assert "placed by seat 1 in 100%" in goal_sentence(planted, worth, seats)[0]
    assert goal_sentence(first.iloc[0:0], worth, seats) == []
