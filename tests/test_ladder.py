"""`simcell ladder` (issue: how strong are the bots): every pairing and mixed pool on the same
deals, Plackett–Luce strengths from the finishing orders with bootstrap intervals, and which
neighbours on the ladder separate. A copy of the planner under another label is the null: it must never
separate from the planner, while greedy must from random."""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from simcell.cli import app
from simcell.reports.data import RunData
from simcell.tools.ladder.report import pair_counts, strengths
from simcell.tools.ladder.loop import fields_for, mixed_pools

CONFIG = """
[run]
players = 3
games = 1000
seed = 31

[[field]]
name = "planner"
policy = "planner"
"""
POLICIES = ["random", "greedy", "planner", "planner#twin"]


def test_every_policy_is_in_as_many_mixed_pools_and_every_pairing_has_a_field():
    for players in (2, 3, 4, 5):
        pools = mixed_pools(POLICIES + ["detox_goals"], players)
        assert all(len(set(p)) == players for p in pools)
        assert len(set(Counter(x for p in pools for x in p).values())) == 1
        fields = fields_for(POLICIES, players, {})
        pairings = [f for f in fields if " among " in f["name"]]
        assert len(pairings) == (6 if players == 2 else 12)
        assert all(f["pool"].count(f["pool"][0]) == 1 for f in pairings if players > 2)
        assert all(f["rotation"] == "all" for f in fields if f["name"].startswith("mixed"))


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    root = tmp_path_factory.mktemp("ladder")
    config = root / "c.toml"
    config.write_text(CONFIG)
    result = CliRunner().invoke(app, ["ladder", str(config), "--policies", ",".join(POLICIES), "-n", "600",
                                      "-p", "2", "-p", "3", "-p", "4", "--out", str(root / "out"), "--quiet",
                                      "--workers", "1"])
    assert result.exit_code == 0, result.output
    return root / "out", result.output


def test_the_ladder_orders_the_bots_and_the_planners_twin_does_not_separate(ladder):
    out, printed = ladder
    steps = pd.read_csv(out / "tables" / "ladder_steps.csv")
    ratings = pd.read_csv(out / "tables" / "ladder_ratings.csv")
    # at 4 players a mixed pool's 24 seat orders give it fewer blocks than a pairing's: the pair
    # counts share one blocking of the deals
    assert set(ratings["players"]) == {2, 3, 4}
    for p in (2, 3, 4):
        r = ratings[ratings["players"] == p].set_index("policy")
        assert r.loc["random", "strength"] < r.loc["greedy", "strength"] < min(r.loc["planner", "strength"],
                                                                                 r.loc["planner#twin", "strength"])
        assert r.loc["planner", "strength"] == 0  # the ladder's reference
        assert (r["strength_low"] <= r["strength"]).all() and (r["strength"] <= r["strength_high"]).all()
        s = steps[steps["players"] == p]
        twins = s[s["stronger"].str.startswith("planner") & s["weaker"].str.startswith("planner")].iloc[0]
        assert not twins["separate"] and twins["ahead_low"] < 50 < twins["ahead_high"]
        assert s[(s["stronger"] == "greedy") & (s["weaker"] == "random")]["separate"].all()
        assert f"{p} players: " in printed and "≈" in printed
    heads = pd.read_csv(out / "tables" / "ladder_head_to_head.csv")
    assert len(heads[heads["players"] == 3]) == 12 and len(heads[heads["players"] == 2]) == 6
    planner_among_greedy = heads[(heads["players"] == 3) & (heads["policy"] == "planner") & (heads["among"] == "greedy")].iloc[0]
    assert planner_among_greedy["win_share_pct"] > 100 / 3 and planner_among_greedy["ahead_pct"] > 55


def test_the_strengths_are_choix_on_every_pair_of_every_game(ladder):
    """The pair counts hold every pair of players of different policies in every game (ties half
    each way), and the strengths are choix's fit of them."""
    import choix

    out, _ = ladder
    plan = json.loads((out / "ladder.json").read_text())
    run = RunData(out / plan["runs"][1]["run"])
    blocks, by_field = pair_counts(run, plan["policies"])
    for seg in run.segments:
        total = by_field[seg.field_name].sum()
        if seg.field_name.startswith("mixed"):
            assert total == pytest.approx(seg.games * 3)  # three distinct players: three pairs a game
        else:
            assert total == pytest.approx(seg.games * 2)  # one among two copies: two pairs a game
    counts = blocks.sum(axis=0)
    theta = choix.ilsr_pairwise_dense(counts, alpha=0.5)
    anchor = plan["policies"].index("planner")
    np.testing.assert_allclose(strengths(counts, anchor), theta - theta[anchor], atol=1e-9)
    ratings = pd.read_csv(out / "tables" / "ladder_ratings.csv")
    r = ratings[ratings["players"] == 3].set_index("policy")
    np.testing.assert_allclose([r.loc[n, "strength"] for n in plan["policies"]], theta - theta[anchor], atol=1e-8)


@pytest.mark.parametrize("args, words", [
    (["--policies", "planner"], "at least two policies"),
    (["--policies", "planner,plannerr"], "no built-in policy 'plannerr'"),
    (["--param", "rollout#b.playouts"], "expected LABEL.KEY=NUMBER"),
])
def test_bad_ladder_input_is_one_line(tmp_path, args, words):
    config = tmp_path / "c.toml"
    config.write_text(CONFIG)
    result = CliRunner().invoke(app, ["ladder", str(config), "--out", str(tmp_path / "o"), "--quiet"] + args)
    assert result.exit_code == 2 and words in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "o" / "runs").exists()


def test_the_run_report_names_the_fields_place_from_a_ladder_folder(ladder, tmp_path):
    """The field's place on the bot ladder, in words a reviewer reads without the tool: its order
    among the ladder's policies and, for the reference, that its strength is 0 by definition (not
    "rung 2 of 3, strength the reference (0) against the planner")."""
    out, _ = ladder
    config = tmp_path / "c.toml"
    config.write_text(CONFIG)
    result = CliRunner().invoke(app, ["run", str(config), "-p", "3", "-n", "600", "--out", str(tmp_path / "run"),
                                      "--quiet", "--workers", "1", "--ladder", str(out)])
    assert result.exit_code == 0, result.output
    date = json.loads((out / "ladder.json").read_text())["date"]
    summary = (tmp_path / "run" / "report" / "report.md").read_text()
    n = len(pd.read_csv(out / "tables" / "ladder_ratings.csv").query("players == 3"))
    assert re.search(rf"On the ladder of {re.escape(date)} \(`simcell ladder`, out\): at 3 players planner "
                     rf"is the \d(st|nd|rd|th) strongest of {n} \(the ladder's reference, strength 0 by "
                     r"definition\)", summary), summary
    assert "rung" not in summary.split("On the ladder of")[1].split(".")[0]
    bad = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "x"), "--ladder", str(tmp_path)])
    assert bad.exit_code == 2 and "not a simcell ladder folder" in bad.output and not (tmp_path / "x").exists()


def test_the_default_ladder_has_the_search_at_two_budgets_and_labels_the_oracle(tmp_path):
    """The default rungs reach above the heuristics (the rollout at 2 and 4 playouts, the
    oracle on top), and wherever the oracle is rated the report says it sees what no player
    sees; over 2-player duels the search outranks greedy."""
    from simcell.tools.ladder.loop import DEFAULT_PARAMS, DEFAULT_POLICIES

    assert {"rollout#p2", "rollout", "oracle"} <= set(DEFAULT_POLICIES)
    assert DEFAULT_PARAMS["rollout#p2"]["playouts"] == 2
    config = tmp_path / "c.toml"
    config.write_text(CONFIG)
    result = CliRunner().invoke(app, ["ladder", str(config), "--policies", "greedy,oracle", "-n", "300",
                                      "-p", "2", "--out", str(tmp_path / "out"), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "upper reference" in (tmp_path / "out" / "report.md").read_text()
    ratings = pd.read_csv(tmp_path / "out" / "tables" / "ladder_ratings.csv").set_index("policy")
    assert ratings.loc["oracle", "strength"] > ratings.loc["greedy", "strength"]


def test_a_run_played_by_the_oracle_says_so_and_a_rollout_run_does_not(tmp_path):
    """resolved.json names the policies that see the hidden cards, and the report's header
    labels their figures as an upper reference; the rollout, which deals what it cannot see,
    is not labelled."""
    marks = {}
    for policy in ("oracle", "rollout"):
        config = tmp_path / f"{policy}.toml"
        config.write_text(CONFIG.replace("players = 3", "players = 2").replace("games = 1000", "games = 64")
                          .replace('policy = "planner"', f'policy = "{policy}"'))
        result = CliRunner().invoke(app, ["run", "--no-rungs", str(config), "-o", str(tmp_path / policy), "--quiet",
                                          "--workers", "1"])
        assert result.exit_code == 0, result.output
        field = json.loads((tmp_path / policy / "resolved.json").read_text())["fields"][0]
        marks[policy] = (field.get("sees_hidden"),
                         "sees the hidden cards" in (tmp_path / policy / "report" / "report.md").read_text())
    assert marks == {"oracle": (["oracle"], True), "rollout": (None, False)}
