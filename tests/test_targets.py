"""Tune's optional targets and its search under them: the winner's HP, the game's length and each
HP source's share of all HP measured from a run (against the records, by hand), the range
verdict at its edges, the search ranking the assignments that meet the targets first, and the
table of every target saying why one is not met."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simcell.reports.data import RunData
from simcell.reports.intervals import IN_BAND, INCONCLUSIVE, OUT_OF_BAND, Estimate
from simcell.tools.tune.targets import every_target, range_verdict, target_rows
from simcell.runner.run import RunOptions, Runner
from simcell.tools.search import search_values
from simcell.vocabulary import HP_SOURCES

CONFIG = """
[run]
players = [2, 4]
games = 3000
seed = 17

[[field]]
name = "greedy"
policy = "greedy"
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> RunData:
    folder = tmp_path_factory.mktemp("targets")
    (folder / "c.toml").write_text(CONFIG)
    Runner(folder / "c.toml", RunOptions(out=folder / "run", workers=1)).run()
    return RunData(folder / "run")


def test_targets_are_the_records_figures(run):
    targets = {"winning_hp": [0, 1000], "game_length": [11, 12], "hp_share": {"enzyme": [0, 100],
                                                                               "goal_bonus": [0, 100]}}
    rows = target_rows(run, targets)
    assert len(rows) == 2 * 4  # two player counts, four targets
    for seg in run.segments:
        df = run.records("players", seg, ["final_hp"] + [f"hp_{s}" for s in HP_SOURCES])
        mine = rows[rows["players"] == seg.players].set_index("target")
        winning = df["final_hp"].to_numpy().reshape(-1, seg.players).max(axis=1).mean()
        assert mine.loc["winning HP", "value"] == pytest.approx(winning)
        total = sum(df[f"hp_{s}"].sum() for s in HP_SOURCES)
        assert mine.loc["enzyme share of HP (%)", "value"] == pytest.approx(100 * df["hp_enzyme"].sum() / total)
        assert mine.loc["game length (rounds)", "value"] == run.rounds(seg.players) == mine.loc[
            "game length (rounds)", "low"]
        assert (mine["verdict"] == IN_BAND).all() and (mine["outside"] == 0).all()
        assert mine.loc["winning HP", "low"] < winning < mine.loc["winning HP", "high"]
    # a range the figure lies far outside: not met, by exactly its distance
    far = target_rows(run, {"winning_hp": [500, 600]})
    assert (far["verdict"] == OUT_OF_BAND).all()
    assert np.allclose(far["outside"], 500 - far["value"])
    assert target_rows(run, {}).empty


def test_the_range_verdict_at_its_edges():
    e = Estimate(10.0, 1.0)  # 90% interval ±1.64, 95% ±1.96
    assert range_verdict(e, 8.3, 11.7) == IN_BAND
    assert range_verdict(e, 8.4, 11.7) == INCONCLUSIVE  # the 90% interval pokes out below
    assert range_verdict(e, 11.9, 20.0) == INCONCLUSIVE  # the 95% interval reaches into the range
    assert range_verdict(e, 11.97, 20.0) == OUT_OF_BAND
    assert range_verdict(e, 0.0, 8.03) == OUT_OF_BAND
    assert range_verdict(Estimate(12.0, 0.0), 12, 12) == IN_BAND  # exact: the length in rounds
    assert range_verdict(Estimate(13.0, 0.0), 10, 12) == OUT_OF_BAND


def test_the_search_ranks_assignments_meeting_the_targets_first():
    # the objective wants x = 3; the targets want the word "b" and x >= 6: the best assignment
    # meeting them is (6, "b"), though (3, "a") has the best objective
    def evaluate(v):
        return abs(v["x"] - 3), [max(0, 6 - v["x"]), 0 if v["w"] == "b" else 1]

    tried = search_values(evaluate, {"x": (0, 9), "w": ["a", "b"]}, [{"x": 3, "w": "a"}], 40, seed=3,
                          constrained=True)
    best, x, excess = tried[0]
    assert best == {"x": 6, "w": "b"} and x == 3 and excess == 0
    assert {"x": 3, "w": "a"} in [t[0] for t in tried]  # the first assignment is always tried
    excesses = [t[2] for t in tried]
    assert excesses[0] == 0 and excesses == sorted(excesses)
    # unconstrained, the same search ranks by the objective alone
    plain = search_values(lambda v: abs(v["x"] - 3), {"x": (0, 9), "w": ["a", "b"]}, [], 20, seed=3)
    assert plain[0][0]["x"] == 3 and plain[0][2] == 0


def _cards(players, **verdicts):
    return pd.DataFrame([{"players": players, "name": n, "type": "enzyme", "contrast_pp": c, "verdict": v}
                         for n, (c, v) in verdicts.items()])


def test_every_target_says_why_one_is_not_met():
    trials = [{"worst_seat_pp": x} for x in (12.0, 7.5, 3.0)]
    plan = {"unreachable": ["A"], "rounds": [{}, {}], "space": {"cards": ["A", "B", "C"], "range": 2},
            "board": {"trials": trials, "before": 12.0, "after": 7.5, "outside_before": 1.5,
                      "outside_after": 0.5}}
    before = _cards(4, A=(3.0, OUT_OF_BAND), B=(2.0, OUT_OF_BAND), C=(0.1, IN_BAND), G=(2.5, OUT_OF_BAND))
    after = _cards(4, A=(2.5, OUT_OF_BAND), B=(1.8, OUT_OF_BAND), C=(0.0, IN_BAND), G=(2.2, OUT_OF_BAND))
    seat = {"players": 4, "worst seat": "seat 0 (first player)", "distance_pp": 9.0, "verdict": OUT_OF_BAND}
    optional = pd.DataFrame([{"players": 4, "target": "winning HP", "range_low": 30, "range_high": 40,
                              "value": 45.0, "low": 44.0, "high": 46.0, "verdict": OUT_OF_BAND, "outside": 5.0}])
    table = every_target(plan, (before, after), ([seat], [seat | {"verdict": IN_BAND}]),
                         (optional, optional), 1.0).set_index("target")
    cards = table.loc["every card's contrast within ±1 pp"]
    assert cards["verdict"] == "not met" and cards["tuned"] == "1 in band, 0 inconclusive, 3 out"
    assert cards["why not, best found"] == ("beyond any value within ±2 as predicted: A +2.50 pp; "
                                            "not settled in 2 rounds: B +1.80 pp; not in the space: G +2.20 pp")
    assert table.loc["every seat's win share within the band", "verdict"] == "met"
    missed = every_target(plan, (before, after), ([seat], [seat]), (optional, optional), 1.0).set_index("target")
    assert missed.loc["every seat's win share within the band", "why not, best found"] == (
        "the board and rules stage's best: 7.5 pp from the fair share (worst seat, 3 assignments on the "
        "search's games; the fairest, 3.0 pp, missed the other targets)")
    hp = table.loc["winning HP within [30, 40]"]
    assert hp["verdict"] == "not met" and "0.50 range widths" in hp["why not, best found"]
    # without a board and rules stage the optional targets were never searched, and the report says so
    plan["board"] = {"trials": []}
    table = every_target(plan, (before, after), ([seat], [seat]), (optional, optional), 1.0).set_index("target")
    assert table.loc["winning HP within [30, 40]", "why not, best found"].startswith("not searched")
    assert "no board value or rule switch" in table.loc["every seat's win share within the band",
                                                        "why not, best found"]


def test_the_search_plays_as_many_distinct_assignments_as_asked():
    calls = []

    def evaluate(v):
        calls.append(dict(v))
        return abs(v["x"] - 2) + (v["w"] == "a")

    # a space of ten: sixteen trials play each of the ten once
    tried = search_values(evaluate, {"x": (0, 4), "w": ["a", "b"]}, [{"x": 0, "w": "a"}], 16, seed=1)
    assert len(tried) == len(calls) == 10 and tried[0][0] == {"x": 2, "w": "b"}
    calls.clear()
    # a larger space: exactly the trials asked for, each a different assignment
    tried = search_values(evaluate, {"x": (0, 40), "w": ["a", "b"]}, [], 12, seed=1)
    assert len(tried) == len(calls) == 12 and len({(c["x"], c["w"]) for c in calls}) == 12


def test_a_plateau_goes_to_the_fewest_and_smallest_changes():
    from simcell.tools.tune.board import rank

    start = {"hp": 3, "turn": "marker"}
    tried = [({"hp": 5, "turn": "rotate"}, 11.0, 0.0), ({"hp": 4, "turn": "rotate"}, 11.0, 0.0),
             ({"hp": 3, "turn": "rotate"}, 11.0, 0.5), ({"hp": 1, "turn": "marker"}, 7.0, 1.2),
             ({"hp": 3, "turn": "marker"}, 20.0, 0.0), ({"hp": 4, "turn": "marker"}, 11.0, 0.0)]
    assert [t[0] for t in rank(tried, start)][:4] == [{"hp": 4, "turn": "marker"}, {"hp": 4, "turn": "rotate"},
                                                      {"hp": 5, "turn": "rotate"}, {"hp": 3, "turn": "marker"}]
