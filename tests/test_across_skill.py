"""Verdicts across skill (skill issue): `simcell run` plays the run's first deals again under each
rung of `[report] rungs`, and the report marks every headline verdict as holding on every rung,
depending on skill, or inconclusive; a run checked under one field says so."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from simcell.cli import app
from simcell.config.errors import ConfigError
from simcell.config.load import load_run_config
from simcell.reports.intervals import IN_BAND, INCONCLUSIVE
from simcell.reports.across_skill import HOLDS, SKILL_DEPENDENT, mark, sentence

CONFIG = """
[run]
players = 2
games = {games}
seed = 11

[[field]]
name = "planner"
policy = "planner"

[report]
{report}
"""


def test_the_mark_of_a_verdict_over_rungs():
    out = "out of band (+)"
    assert mark({"planner": out, "rollout": out}) == (HOLDS, "")
    kind, how = mark({"planner": out, "fitted": INCONCLUSIVE, "rollout": IN_BAND})
    assert kind == SKILL_DEPENDENT and how == f"{out} under planner; in band under rollout"
    # a seat far ahead under one rung and far behind under another is not the same verdict
    assert mark({"planner": out, "rollout": "out of band (−)"})[0] == SKILL_DEPENDENT
    assert mark({"planner": out, "rollout": INCONCLUSIVE}) == (INCONCLUSIVE, "inconclusive under rollout")


def test_figures_further_apart_than_their_band_depend_on_skill():
    from simcell.reports.across_skill import sizes_apart
    from simcell.reports.intervals import Estimate

    def fig(value, half, band=1.0):
        e = Estimate(value, half / 1.96, 0, bounds=(value - half, value + half))
        return (e, INCONCLUSIVE, band, e)

    # the planner's -4.3 against the fitted field's -1.0 at the band's edge: about the bots
    text = sizes_apart({"planner": fig(-4.3, 0.15), "fitted": fig(-1.0, 0.5)})
    assert text.startswith("-4.3 pp under planner, -1.0 under fitted: 3.3 pp apart"), text
    # the same figure twice (an A/A pair) is never apart, however narrow
    assert sizes_apart({"planner": fig(-2.0, 0.1), "fitted": fig(-2.0, 0.1)}) == ""
    # apart by more than the band, but not beyond the intervals: not decided
    assert sizes_apart({"planner": fig(-4.3, 0.15), "rollout": fig(-1.0, 2.6)}) == ""
    # apart by less than the band, however precise
    assert sizes_apart({"planner": fig(-1.9, 0.05), "fitted": fig(-1.0, 0.05)}) == ""
    # any pair decides it: here the second and third
    assert sizes_apart({"rollout": fig(-1.0, 3.0), "fitted": fig(2.0, 0.3), "planner": fig(0.0, 0.3)}
                       ).startswith("+2.0 pp under fitted, +0.0 under planner")


def test_rungs_are_checked_like_every_config_key(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(CONFIG.format(games=100, report='rungs = ["planner", "rollot"]'))
    with pytest.raises(ConfigError, match="rollot"):
        load_run_config(path)
    path.write_text(CONFIG.format(games=100, report='rungs = ["planner", "planner"]'))
    with pytest.raises(ConfigError, match="named twice"):
        load_run_config(path)
    path.write_text(CONFIG.format(games=100, report=""))
    assert load_run_config(path).report.rungs == ("planner", "fitted", "rollout")


def _run(tmp_path, report, *extra):
    config = tmp_path / "c.toml"
    config.write_text(CONFIG.format(games=6000, report=report))
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(config), "-o", str(out), "--workers", "1", *extra])
    assert result.exit_code == 0, result.output
    return out


def test_a_verdict_that_depends_on_skill_is_marked_so(tmp_path):
    """Against random players the first seat has no edge a planner's has (+24 pp at 2 players):
    its verdict is skill-dependent; the report says so in the summary, with the rung it changes on."""
    out = _run(tmp_path, 'rungs = ["planner", "random"]\nrung_games = 6000')
    plan = json.loads((out / "rungs" / "rungs.json").read_text())
    assert [r["rung"] for r in plan["rungs"]] == ["planner", "random"]
    assert plan["rungs"][0]["run"] == "."  # the run itself is the planner rung, not played twice
    assert plan["rungs"][1]["games"] == 6000 and plan["rungs"][1]["seconds"] > 0
    df = pd.read_csv(out / "report" / "tables" / "across_skill.csv")
    seats = df[df["figure"].str.startswith("seat")]
    assert len(seats) == 2 and len(df) == 2 + 7  # every seat and every card type
    first = seats.iloc[0]
    assert first["planner_verdict"] == "out of band (+)" and first["across_skill"] == SKILL_DEPENDENT
    assert "under random" in first["how"]
    md = (out / "report" / "report.md").read_text()
    assert "depend on skill" in md and "seat 0 (first player) win share − fair share at 2 players" in md


def test_a_run_checked_under_one_field_says_so(tmp_path):
    out = _run(tmp_path, 'rungs = ["planner", "random"]', "--no-rungs")
    assert not (out / "rungs").exists()
    md = (out / "report" / "report.md").read_text()
    assert "checked under one field, the run's own" in md
    assert sentence(None).startswith("The verdicts were checked under one field")


def test_a_change_is_classed_against_its_band():
    from simcell.reports.changes import DOWN, UP, change_class

    assert change_class(3.0, 2.0, 4.0, 1.0) == UP and change_class(-3.0, -4.0, -2.0, 1.0) == DOWN
    assert change_class(0.1, -0.5, 0.7, 1.0) == IN_BAND
    assert change_class(0.8, -0.2, 1.8, 1.0) == INCONCLUSIVE


def test_compare_marks_each_change_across_skill(tmp_path):
    """Two configs compared with rungs: each run is played again under each rung on the compare's
    seed, and every seat's and card type's change carries its mark across skill."""
    a = tmp_path / "a.toml"
    a.write_text(CONFIG.format(games=3000, report='rungs = ["planner", "random"]'))
    b = tmp_path / "b.toml"
    b.write_text(a.read_text() + '\n[overrides.types.detox]\natp = "+2"\n')
    out = tmp_path / "cmp"
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "-o", str(out), "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    for side in ("a", "b"):
        plan = json.loads((out / side / "rungs" / "rungs.json").read_text())
        assert [r["rung"] for r in plan["rungs"]] == ["planner", "random"]
    skill = pd.read_csv(out / "tables" / "across_skill.csv")
    assert len(skill) == 2 + 7 and set(skill["across_skill"]) <= {HOLDS, SKILL_DEPENDENT, INCONCLUSIVE}
    assert {"planner_class", "random_class"} <= set(skill.columns)
    types = pd.read_csv(out / "tables" / "types.csv")
    assert types["across_skill"].notna().all()
    assert "Across skill (planner, random" in result.output
    # without rungs the comparison says it was checked under one field
    out2 = tmp_path / "cmp2"
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "-o", str(out2), "--workers", "1",
                                      "--quiet", "--no-rungs"])
    assert result.exit_code == 0 and "Checked under one field" in result.output


def test_sweep_marks_its_end_to_end_change_across_skill(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(CONFIG.format(games=3000, report='rungs = ["planner", "random"]'))
    out = tmp_path / "sw"
    result = CliRunner().invoke(app, ["sweep", str(config), "--set", 'cards."Insulin".hp=2,6', "-o", str(out),
                                      "--workers", "1", "--quiet", "--no-holdout"])
    assert result.exit_code == 0, result.output
    skill = pd.read_csv(out / "tables" / "sweep_across_skill.csv")
    assert "Insulin: against its type" in set(skill["figure"])
    insulin = skill.set_index("figure").loc["Insulin: against its type"]
    assert insulin["planner_difference"] > 0  # 4 HP more: the card is worth more to the planner
    assert "From the first variant to the last, across skill (planner, random" in (out / "report.md").read_text()


def test_games_to_settle_scale_with_the_interval_and_stop_at_the_edge():
    from simcell.reports.across_skill import EDGE_HALF_WIDTH, games_to_settle
    from simcell.reports.intervals import Estimate

    def est(value, half):
        return Estimate(value, half / 1.96, 0, bounds=(value - half, value + half))

    # 2.5 pp from zero against a 1 pp band, a 95% half width 2 and a simultaneous one 3 (the one
    # a card's verdict is read from): 1.5 from the edge, (3 / 1.5)^2 the games
    assert games_to_settle(est(2.5, 2.0), est(2.5, 3.0), 1.0, 5000) == pytest.approx(5000 * (3.0 / 1.5) ** 2)
    assert games_to_settle(est(0.2, 1.0), est(0.2, 1.0), 1.0, 1000) == pytest.approx(1000 * (1.0 / 0.8) ** 2)
    # already precise to half a pp yet undecided: the figure sits on the band's edge
    assert games_to_settle(est(1.1, EDGE_HALF_WIDTH * 0.9), est(1.1, 0.9), 1.0, 10**6) == float("inf")
    assert games_to_settle(est(1.0, 2.0), est(1.0, 3.0), 1.0, 5000) == float("inf")


def test_a_rung_that_plays_the_runs_own_field_is_not_replayed(tmp_path):
    """At 4 players `simcell fit` moved no worth of the planner: the fitted rung is the run's own
    field there. It is not played; the plan and the report say so, and its verdicts are the run's."""
    config = tmp_path / "c.toml"
    config.write_text(CONFIG.format(games=800, report='rungs = ["planner", "fitted"]\nblocks = 50')
                      .replace("players = 2", "players = 4"))
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(config), "-o", str(out), "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "rungs" / "rungs.json").read_text())
    fitted = [r for r in plan["rungs"] if r["rung"] == "fitted"]
    assert fitted == [{"rung": "fitted", "run": ".", "players": [4], "games": 800, "identical": True}]
    assert not (out / "rungs" / "fitted").exists()
    md = (out / "report" / "report.md").read_text()
    assert "fitted at 4 players plays the run's own field, worth for worth" in md
    df = pd.read_csv(out / "report" / "tables" / "across_skill.csv")
    assert (df["planner_value"] == df["fitted_value"]).all()


def test_rungs_named_on_the_command_line_replace_the_configs(tmp_path):
    out = _run(tmp_path, 'rungs = ["planner", "fitted", "rollout"]\nrung_games = 6000', "--rungs",
               "planner,random", "--quiet")
    plan = json.loads((out / "rungs" / "rungs.json").read_text())
    assert [r["rung"] for r in plan["rungs"]] == ["planner", "random"]
    config = tmp_path / "c.toml"
    bad = CliRunner().invoke(app, ["run", str(config), "-o", str(tmp_path / "x"), "--rungs", "planer"])
    assert bad.exit_code == 2 and "did you mean 'planner'" in bad.output
    assert len(bad.output.strip().splitlines()) == 1
    both = CliRunner().invoke(app, ["run", str(config), "-o", str(tmp_path / "y"), "--rungs", "random",
                                    "--no-rungs"])
    assert both.exit_code == 2 and "give one" in both.output


def test_an_inconclusive_verdict_says_what_would_settle_it(tmp_path):
    """A short random rung leaves verdicts undecided: each says how many more games of the rung
    (and about how long) would settle it, or that it sits on the band's edge."""
    out = _run(tmp_path, 'rungs = ["planner", "random"]\nrung_games = 300', "--quiet")
    df = pd.read_csv(out / "report" / "tables" / "across_skill.csv")
    undecided = df[df["across_skill"] == INCONCLUSIVE]
    assert len(undecided) > 0
    for _, r in undecided.iterrows():
        assert "random ~" in r["to_settle"] or "band's edge" in r["to_settle"], r["to_settle"]
    settled = df[df["across_skill"] != INCONCLUSIVE]
    assert settled["to_settle"].isna().all() or (settled["to_settle"].fillna("") == "").all()
    md = (out / "report" / "report.md").read_text()
    assert "What is left: each inconclusive verdict" in md
