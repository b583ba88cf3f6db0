"""`simcell tune` (issue: automatic re-balancing): the search space and its one-line errors, the
tuned card file and config, the step a card out of band takes, and (slow) the recovery of three
perturbed cards and the null case of a set already in band, each confirmed on fresh seeds."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from simcell.cli import app
from simcell.config.errors import ConfigError
from simcell.config.load import load_run_config
from simcell.config.tune import TuneSpace, rule_values, tune_space, write_tuned
from simcell.tools.tune.loop import _prune, _step
from simcell.vocabulary import MAX_BATCH_CODE

BASE = """
[run]
players = {players}
games = {games}
seed = 41

[[field]]
name = "planner"
policy = "planner"
"""


def test_the_space_reads_names_types_and_flags(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(BASE.format(players=3, games=1000)
                      + '[tune]\ncards = ["enzyme", "Insulin"]\nfields = ["hp", "atp"]\nrange = 3\n')
    space = tune_space(config)
    assert "Insulin" in space.cards and "Amylase" in space.cards and "Leptin" not in space.cards
    assert space.fields == ("atp", "hp") and space.range == 3 and space.confirm_games == 1000
    assert tune_space(config, cards=["all"], range_=1).range == 1
    assert len(tune_space(config, cards=["all"]).cards) == 39  # every card a player completes
    for table, words in (('cards = ["Insulinn"]', "Insulin"), ('fields = ["gold"]', "gold"),
                         ("range = 0", "range"), ("ranges = 2", "ranges"),
                         ('rules = ["turn_orders"]', "turn_order"),
                         ("targets = { winning_hp = [40, 30] }", "low <= high"),
                         ("targets = { winning_hp = [30] }", "low <= high"),
                         ("targets = { game_lenght = [10, 12] }", "game_length"),
                         ("targets = { hp_share = { enzymes = [10, 20] } }", "enzyme")):
        config.write_text(BASE.format(players=3, games=1000) + f"[tune]\n{table}\n")
        with pytest.raises(ConfigError, match=words):
            tune_space(config)


def test_the_space_reads_rule_switches_and_targets(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(BASE.format(players=3, games=1000) + """
[tune]
rules = ["turn_order", "grey_per_player"]
[tune.targets]
winning_hp = [40, 50]
hp_share = { goal_bonus = [5, 15.5], enzyme = [10, 20] }
""")
    space = tune_space(config)
    assert space.rules == ("turn_order", "grey_per_player")
    assert space.targets.as_dict() == {"winning_hp": [40, 50],
                                       "hp_share": {"enzyme": [10, 20], "goal_bonus": [5, 15.5]}}
    assert tune_space(config, rules=["epigenetic"]).rules == ("epigenetic",)
    rules = load_run_config(config).game.rules
    assert rule_values(rules, "turn_order", 2) == ["marker", "rotate"]
    assert rule_values(rules, "epigenetic", 2) == [False, True]
    assert rule_values(rules, "grey_per_player", 2) == [1, 0, 2, 3]  # never below 0
    assert rule_values(rules, "max_batch", 2) == [12, 10, 11, 13, 14]
    top = dataclasses.replace(rules, max_batch=MAX_BATCH_CODE - 1)  # never above the largest code
    assert rule_values(top, "max_batch", 2) == [MAX_BATCH_CODE - 1, MAX_BATCH_CODE - 3, MAX_BATCH_CODE - 2,
                                                MAX_BATCH_CODE]


def test_the_tuned_set_is_the_configs_set_with_the_changes(tmp_path):
    config = tmp_path / "c.toml"
    # a relative type override is in the written cards once, not again in the tuned config
    config.write_text(BASE.format(players=3, games=1000) + '[overrides.cards."Leptin"]\natp = 3\n'
                      + '[overrides.types.detox]\nhp = "+3"\n')
    cards, tuned = write_tuned(config, {("Insulin", "atp"): 2, ("Amylase", "hp"): 4}, tmp_path / "out")
    before = {c.name: c for c in load_run_config(config).game.cards}
    after = {c.name: c for c in load_run_config(tuned).game.cards}
    assert after["Insulin"].atp == 2 and after["Amylase"].hp == 4 and after["Leptin"].atp == 3
    assert [n for n in before if before[n] != after[n]] == ["Amylase", "Insulin"]
    text = cards.read_text()
    assert "Insulin.atp: 1 -> 2" in text and "overrides" not in tuned.read_text()


def _space(**kw) -> TuneSpace:
    return TuneSpace(cards=("X",), fields=("atp", "hp"), range=2, screen_games=1000, rounds=1,
                     confirm_games=1000) if not kw else TuneSpace(**kw)


def test_a_card_out_of_band_steps_toward_zero():
    rows = pd.DataFrame({"contrast_pp": [1.6, 1.2]})  # two player counts
    slopes = {("enzyme", "atp"): -0.7, ("enzyme", "hp"): 1.5}
    original = {("X", "atp"): 1, ("X", "hp"): 3}
    # the cost first: +2 ATP brings it within half the band
    assert _step("X", rows, ["atp", "hp"], {}, original, slopes, "enzyme", _space(), 1.0) == (("X", "atp"), 3, True)
    # too far for two ATP: the HP, the smallest step that reaches
    far = pd.DataFrame({"contrast_pp": [3.2]})
    assert _step("X", far, ["atp", "hp"], {}, original, slopes, "enzyme", _space(), 1.0) == (("X", "hp"), 1, True)
    # a card already moving in HP keeps to it; never below the field's minimum (HP 1)
    low = pd.DataFrame({"contrast_pp": [9.0]})
    key, value, reaches = _step("X", low, ["atp", "hp"], {("X", "hp"): 2}, original, slopes, "enzyme", _space(), 1.0)
    assert key == ("X", "hp") and value == 1 and not reaches
    # a card that has moved steps one unit a round (HP 4 -> 3, not the 2 its response predicts)
    moved = _step("X", far, ["hp"], {("X", "hp"): 4}, {("X", "atp"): 1, ("X", "hp"): 5}, slopes, "enzyme",
                  _space(cards=("X",), fields=("atp", "hp"), range=3, screen_games=1000, rounds=1,
                         confirm_games=1000), 1.0)
    assert moved == (("X", "hp"), 3, False)
    # a card too weak: cheaper, never below 0 ATP
    weak = pd.DataFrame({"contrast_pp": [-2.5]})
    assert _step("X", weak, ["atp"], {}, original, slopes, "enzyme", _space(), 1.0) == (("X", "atp"), 0, False)
    assert _step("X", weak, ["atp"], {}, original, {}, "enzyme", _space(), 1.0) is None


def _state(**contrast):
    """A card_state frame at one player count: name -> (type, contrast, half-width)."""
    return pd.DataFrame([{"players": 5, "name": n, "type": t, "contrast_pp": c,
                          "contrast_pp_low": c - h, "contrast_pp_high": c + h}
                         for n, (t, c, h) in contrast.items()])


def test_the_prune_reverts_only_changes_the_set_does_not_need():
    changes = {("A", "atp"): 3, ("B", "atp"): 5, ("C", "hp"): 4, ("D", "atp"): 1}
    original = {("A", "atp"): 2, ("B", "atp"): 2, ("C", "hp"): 3, ("D", "atp"): 2}
    types = {"A": "enzyme", "B": "enzyme", "C": "hormone", "D": "receptor", "E": "receptor"}
    slopes = {("enzyme", "atp"): -0.5, ("hormone", "hp"): 0.8, ("receptor", "atp"): -0.6}
    now = _state(A=("enzyme", 0.1, 0.2), B=("enzyme", 0.0, 0.2), C=("hormone", -0.1, 0.2),
                 D=("receptor", 0.0, 0.2), E=("receptor", 0.3, 0.2))
    # A (0.1 + 0.5 = 0.6 predicted), C (-0.9) and D (-0.6) are candidates, B (1.5) is not;
    # measured without them: A within the band (reverted), C beyond it (kept), D within the band
    # but its type's E pushed beyond it (kept)
    after = _state(A=("enzyme", 0.7, 0.2), B=("enzyme", -0.2, 0.2), C=("hormone", -1.3, 0.2),
                   D=("receptor", -0.5, 0.2), E=("receptor", 1.5, 0.2))
    measured = []

    def measure(ch):
        measured.append(dict(ch))
        return now if len(measured) == 1 else after

    kept, reverted = _prune(changes, original, slopes, types, 1.0, measure)
    assert measured == [changes, {("B", "atp"): 5}]
    assert reverted == [("A", "atp", 3)]
    assert kept == {("B", "atp"): 5, ("C", "hp"): 4, ("D", "atp"): 1}
    # nothing to try: one measurement, nothing reverted
    measured.clear()
    assert _prune({("B", "atp"): 5}, original, slopes, types, 1.0, measure) == ({("B", "atp"): 5}, [])
    assert len(measured) == 1


def test_bad_tune_input_is_one_line(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(BASE.format(players=3, games=1000))
    for args, words in ((["--cards", "Insulinn"], "Insulin"), (["--fields", "gold"], "gold"),
                        (["--board", "board.goals.first_marker"], "first_marker_hp")):
        result = CliRunner().invoke(app, ["tune", str(config), "--out", str(tmp_path / "x"), *args])
        assert result.exit_code == 2, result.output
        assert words in result.output and result.output.count("\n") == 1, result.output


def test_tune_end_to_end_small(tmp_path):
    """A small tune runs every stage (responses, rounds, holdout) and writes what it promises."""
    config = tmp_path / "c.toml"
    config.write_text(BASE.format(players=3, games=4000)
                      + "[tune.targets]\nwinning_hp = [20, 200]\ngame_length = [12, 13]\n")
    out = tmp_path / "t"
    result = CliRunner().invoke(app, ["tune", str(config), "--cards", "enzyme", "--screen-games", "3000",
                                      "--rounds", "2", "--out", str(out), "--quiet", "--workers", "1",
                                      "--board", "board.goals.first_marker_hp,board.setup.starting_atp",
                                      "--rules", "turn_order", "--board-trials", "3"])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "tune.json").read_text())
    first = [r for r in plan["rounds"] if r["pass"] == 1]
    assert len(first) == 2 and first[1]["games"] == 6000
    # the board and rules stage kept values: the cards' rounds again under them (a second pass)
    kept = {k: to for k, _was, to in plan["board"]["values"]}
    assert [r["pass"] for r in plan["rounds"]] == [1, 1] + ([2, 2] if kept else [])
    if kept:
        assert "round 1 (pass 2)" in plan["seconds"]
        again = plan["second_pass"]  # kept only when nearer the band than the first pass's values
        assert again["games"] == 6000 and again["kept"] == (again["second pass, pp"] < again["first pass, pp"])
        tried = [json.loads((d / "resolved.json").read_text())["game"]["definition"]
                 for d in (out / "search").iterdir() if d.name.startswith("3000-")]
        assert any(g["rules"]["turn_order"] == kept.get("rules.turn_order", "marker")
                   and g["board"]["first_marker_hp"] == kept.get("board.goals.first_marker_hp", 3)
                   and g["board"]["starting_atp"] == kept.get("board.setup.starting_atp", [2, 3, 4, 5, 6])
                   for g in tried)
    # a prune ran where changes were made (the first pass's is "prune", a second's "prune (pass 2)")
    assert any(k.startswith("prune") for k in plan["seconds"]) or not (plan["changes"] or plan["pruned"])
    # the board stage: the current values first, two more assignments; the first round's games
    board = plan["board"]
    assert len(board["trials"]) <= 3 and {} in [t["values"] for t in board["trials"]]
    assert all(set(t["values"]) <= {"board.goals.first_marker_hp", "rules.turn_order"}
               | {f"board.setup.starting_atp[{i}]" for i in range(5)} for t in board["trials"])
    # the targets: the game is 11 rounds at 3 players, whatever the board, so no trial meets them
    assert all(t["targets_outside"] == pytest.approx(1.0) for t in board["trials"])
    targets = pd.read_csv(out / "tables" / "tune_targets.csv").set_index("target")
    assert targets.loc["game length (rounds) within [12, 13]", "verdict"] == "not met"
    assert targets.loc["winning HP within [20, 200]", "verdict"] == "met"
    assert board["after"] <= board["before"] and len(list((out / "board").iterdir())) == len(board["trials"])
    first_marker = load_run_config(out / "tuned.toml").game.board.first_marker_hp
    kept = {k: to for k, _was, to in board["values"]}
    assert first_marker == kept.get("board.goals.first_marker_hp", 3)
    assert len(plan["responses"]) >= 4 and len({r["field"] for r in plan["responses"]}) == 2
    # +2 HP on an Enzyme moves its contrast by several pp, resolved at 3,000 games; +2 ATP by
    # about 1 pp at 3 players (40,000 paired games), whose sign 3,000 games do not resolve
    assert plan["slopes"]["enzyme.hp"] > 0 and np.isfinite(plan["slopes"]["enzyme.atp"])
    tuned = load_run_config(out / "tuned.toml")
    changed = {(c, f): to for c, _t, f, _from, to in plan["changes"]}
    for (c, f), to in changed.items():
        assert getattr(next(x for x in tuned.game.cards if x.name == c), f) == to
    assert (out / "compare" / "report.html").is_file() and (out / "report.html").is_file()
    assert json.loads((out / "compare" / "a" / "resolved.json").read_text())["seed"] == plan["holdout"]["seed"] != 41
    verdicts = pd.read_csv(out / "tables" / "tune_verdicts.csv")
    assert len(verdicts) == 1 and verdicts.filter(like="tuned").sum(axis=1).iloc[0] == 43


def test_tune_steps_a_whole_type_back_toward_its_gap_band(tmp_path):
    """Every Detoxification card +3 HP (a type far above the average card, every card's contrast
    within its type untouched): `--types` steps the whole type's HP down together, each card by
    the same amount, and the holdout shows the type's gap nearer zero; without `--types` the
    tune leaves the type alone and its target row says so."""
    config = tmp_path / "c.toml"
    config.write_text(BASE.format(players=3, games=6000) + '[overrides.types.detox]\nhp = "+3"\n')
    detox = [c for c in load_run_config(config).game.cards if c.type == "detox"]
    out = tmp_path / "t"
    result = CliRunner().invoke(app, ["tune", str(config), "--cards", "Detoxification", "--fields", "hp",
                                      "--screen-games", "6000", "--rounds", "2", "--types", "--out", str(out),
                                      "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "tune.json").read_text())
    assert plan["space"]["types"] and plan["rounds"][0]["types beyond the band"] == 1
    (kind, field, step), = plan["type_steps"]
    assert (kind, field) == ("detox", "hp") and -3 <= step < 0
    own = {c: to - frm for c, _t, _f, frm, to in plan["changes"]}
    assert set(own) == {c.name for c in detox} and set(own.values()) == {step}  # the whole type, alike
    assert "every detox.hp" in plan["rounds"][0]["stepped"]
    types = pd.read_csv(out / "tables" / "tune_types.csv")
    assert len(types) == 6 and set(types["players"]) == {3}
    targets = pd.read_csv(out / "tables" / "tune_targets.csv")
    row = targets[targets["target"].str.startswith("every card type's gap")].iloc[0]
    gap = {side: float(types.loc[types["type"] == "detox", side].iloc[0].split(" ")[0]) for side in ("original", "tuned")}
    assert gap["original"] > 3 and abs(gap["tuned"]) < gap["original"] - 2, gap
    assert row["original"] != row["tuned"]

    plain = tmp_path / "plain"
    result = CliRunner().invoke(app, ["tune", str(config), "--cards", "Detoxification", "--fields", "hp",
                                      "--screen-games", "6000", "--rounds", "1", "--out", str(plain),
                                      "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert json.loads((plain / "tune.json").read_text())["type_steps"] == []
    targets = pd.read_csv(plain / "tables" / "tune_targets.csv")
    row = targets[targets["target"].str.startswith("every card type's gap")].iloc[0]
    assert row["verdict"] == "not met" and "not searched ([tune] types = true" in row["why not, best found"]


def test_a_spent_budget_ends_the_search_and_the_holdout_still_runs(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(BASE.format(players=3, games=2000))
    out = tmp_path / "t"
    result = CliRunner().invoke(app, ["tune", str(config), "--cards", "enzyme", "--screen-games", "2000",
                                      "--rounds", "3", "--budget-games", "1000", "--board",
                                      "board.goals.first_marker_hp", "--out", str(out), "--quiet",
                                      "--workers", "1"])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "tune.json").read_text())
    assert len(plan["rounds"]) == 1 and plan["board"]["trials"] == []
    assert plan["budget"]["left out"][0] == "round 2 or later" and "board and rules stage" in plan["budget"]["left out"]
    assert (out / "compare" / "report.html").is_file()
    assert "budget" in (out / "report.md").read_text()


def _recovery_config(tmp_path):
    # three cards near the middle of their types as shipped (5 players: each within 0.45 pp of
    # its type in `simcell run configs/all-counts.toml`, 250,000 games), perturbed, beside three
    # others as near, of a type no perturbed card shares (a perturbed card still shifts its type's
    # reference a little while it lies near the others); a designer's band of 0.5 pp, so that
    # the 2-ATP steps (about 0.5-1 pp a unit) lie well beyond it, and a range of 3 so that the
    # +3 HP can be undone whole
    config = tmp_path / "rec.toml"
    config.write_text(BASE.format(players=5, games=200_000) + """
[overrides.cards."Insulin"]
hp = 6
[overrides.cards."Aldosterone"]
atp = 4
[overrides.cards."Erythropoietin Receptor"]
atp = 4

[report.bands]
card_open_hand_pp = 0.5

[tune]
cards = ["Insulin", "Aldosterone", "Erythropoietin Receptor", "Pepsin", "DNA Polymerase", "Catalase"]
range = 3
screen_games = 200000
rounds = 2
""")
    return config


@pytest.mark.slow
def test_tune_recovers_three_perturbed_cards(tmp_path):
    """From a set with Insulin +3 HP, Aldosterone +2 ATP and Erythropoietin Receptor +2 ATP, the
    tuner moves each perturbed value back by at least half its perturbation and changes at most
    two other values."""
    out = tmp_path / "t"
    result = CliRunner().invoke(app, ["tune", str(_recovery_config(tmp_path)), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "tune.json").read_text())
    changed = {(c, f): (was, to) for c, _t, f, was, to in plan["changes"]}
    print("\n", plan["changes"], "\n", pd.DataFrame(plan["rounds"]).drop(columns="stepped"))
    # (the perturbed value, the step that undoes the perturbation)
    perturbed = {("Insulin", "hp"): (6, -3), ("Aldosterone", "atp"): (4, -2),
                 ("Erythropoietin Receptor", "atp"): (4, -2)}
    for key, (start, back) in perturbed.items():
        to = changed.get(key, (start, start))[1]
        assert (to - start) * np.sign(back) >= abs(back) / 2, (key, to)
    others = [k for k in changed if k not in perturbed]
    assert len(others) <= 2, others


@pytest.mark.slow
def test_tune_changes_nothing_in_a_set_already_in_band(tmp_path):
    """Cards in the middle of their types (5 players, band 1 pp; chosen from the shipped
    all-counts run, each within 0.3 pp of its type, 250,000 games): no change is proposed, and
    the holdout finds none of them out of band."""
    config = tmp_path / "null.toml"
    config.write_text(BASE.format(players=5, games=200_000)
                      + '[tune]\ncards = ["Erythropoietin Receptor", "DNA Polymerase", "Hexokinase", "Catalase", "Trypsin", "Amylase"]\n'
                        "screen_games = 100000\nrounds = 2\n")
    out = tmp_path / "t"
    result = CliRunner().invoke(app, ["tune", str(config), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "tune.json").read_text())
    print("\n", pd.DataFrame(plan["rounds"]).drop(columns="stepped"))
    assert plan["changes"] == []
    tuned = pd.read_csv(out / "tables" / "tune_cards.csv")
    mine = tuned[tuned["name"].isin(["Erythropoietin Receptor", "DNA Polymerase", "Hexokinase", "Catalase", "Trypsin", "Amylase"])]
    assert not (mine["verdict_tuned"] == "out of band").any()


def test_tune_figure_has_no_overlapping_labels():
    import numpy as np

    from simcell.tools.tune.report import _figure
    from tests.test_report_figures import figure_problems

    rng = np.random.default_rng(2)
    n = 43
    c0, c1 = rng.normal(0, 2, n), rng.normal(0, 0.6, n)
    part = pd.DataFrame({"name": [f"Card {i}" for i in range(n)], "type": ["enzyme"] * n,
                         "contrast_pp_original": c0, "contrast_pp_low_original": c0 - 0.4,
                         "contrast_pp_high_original": c0 + 0.4, "contrast_pp_tuned": c1,
                         "contrast_pp_low_tuned": c1 - 0.4, "contrast_pp_high_tuned": c1 + 0.4})
    assert not figure_problems(_figure(part, 1.0, {"Card 3"}))


def test_the_shipped_tuned_set_is_the_shipped_set_with_its_listed_changes():
    """simcell/data/cards-tuned.toml (simcell tune on the shipped set, README "simcell tune")
    lists its changes in its header; the card values differ from the shipped set by exactly
    those, and configs/tuned-2p.toml to tuned-5p.toml play it."""
    import re
    from pathlib import Path

    from simcell.config.load import load_default_game, shipped_data_path
    from simcell.config.tune import TUNE_FIELDS

    root = Path(__file__).resolve().parent.parent
    text = Path(shipped_data_path("cards")).with_name("cards-tuned.toml").read_text()
    listed = {(n, f): (int(a), int(b)) for n, f, a, b in
              re.findall(r"^#   (.+)\.(\w+): (\d+) -> (\d+)$", text, flags=re.M)}
    assert listed
    shipped = {c.name: c for c in load_default_game().cards}
    for players in (2, 3, 4, 5):
        tuned = {c.name: c for c in load_run_config(root / "configs" / f"tuned-{players}p.toml").game.cards}
        found = {(n, f): (getattr(shipped[n], f), getattr(tuned[n], f)) for n in shipped for f in TUNE_FIELDS
                 if getattr(shipped[n], f) != getattr(tuned[n], f)}
        assert found == listed
        assert load_run_config(root / "configs" / f"tuned-{players}p.toml").players == (players,)
    # one proposal for every player count: the same starting-ATP schedule and rule switches beside the cards
    games = [load_run_config(root / "configs" / f"tuned-{p}p.toml").game for p in (2, 3, 4, 5)]
    schedules = {tuple(g.board.starting_atp) for g in games}
    assert len(schedules) == 1 and schedules != {tuple(load_default_game().board.starting_atp)}
    assert len({g.rules for g in games}) == 1
    assert games[0].rules.turn_order == "rotate" and schedules == {(1, 2, 2, 3, 7)}


def test_the_objective_is_that_of_the_field_furthest_beyond_the_band():
    from simcell.tools.tune.report import objective

    state = pd.DataFrame({"field": ["planner"] * 2 + ["greedy"] * 2, "contrast_pp": [3.0, -1.5, 0.5, 4.0]})
    assert objective(state, 1.0) == pytest.approx(3.0)  # planner 2 + 0.5; greedy 0 + 3
    assert objective(state[state["field"] == "planner"], 1.0) == pytest.approx(2.5)


def test_tune_over_rungs_plays_every_field_and_reports_each(tmp_path):
    """`[tune] rungs`: every run of the tune plays a field of each rung beside the config's own, on
    the same games; a card's step is the one whose worst predicted contrast over the fields is
    smallest, and the holdout reports each field's verdicts."""
    config = tmp_path / "c.toml"
    config.write_text(BASE.format(players=2, games=3000) + '[tune]\nrungs = ["greedy"]\n')
    assert tune_space(config).rungs == ("greedy",)
    config.write_text(BASE.format(players=2, games=3000) + '[tune]\nrungs = ["rollout"]\n')
    with pytest.raises(ConfigError, match="search policy"):
        tune_space(config)
    out = tmp_path / "t"
    config.write_text(BASE.format(players=2, games=3000))
    result = CliRunner().invoke(app, ["tune", str(config), "--cards", "Amylase", "--screen-games", "2000",
                                      "--rounds", "1", "--rungs", "greedy", "--out", str(out), "--quiet",
                                      "--workers", "1"])
    assert result.exit_code == 0, result.output
    for run in list((out / "search").iterdir()) + [out / "compare" / "a", out / "compare" / "b"]:
        fields = [f["name"] for f in json.loads((run / "resolved.json").read_text())["fields"]]
        assert fields == ["planner", "greedy"]
    verdicts = pd.read_csv(out / "tables" / "tune_verdicts.csv")
    assert sorted(verdicts["field"]) == ["greedy", "planner"]
    assert (verdicts.filter(like="tuned").sum(axis=1) == 43).all()
    targets = pd.read_csv(out / "tables" / "tune_targets.csv")
    assert set(targets["field"].dropna()) == {"greedy", "planner"}
