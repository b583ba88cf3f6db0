"""`simcell sweep` (designer tools issue): reading --set and [sweep], the variants as configs,
bad input as one line, and a large ATP step that must lower the card's pick rate and its
opening-hand effect (a test that can fail)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from simcell.cli import app
from simcell.config.errors import ConfigError
from simcell.config.load import load_run_config
from simcell.config.variants import parse_set, variants

BASE = """
[run]
players = 3
games = {games}
seed = 8

[[field]]
name = "greedy"
policy = "greedy"
"""


def test_set_reads_keys_and_values():
    s = parse_set('cards."Insulin Receptor".atp=1,2,3')
    assert s.path == ("overrides", "cards", "Insulin Receptor", "atp") and s.values == (1, 2, 3)
    assert parse_set("rules.turn_order=marker,rotate").values == ("marker", "rotate")
    assert parse_set("rules.starting_atp=[2, 3, 4, 5, 6],[3, 3, 4, 5, 6]").values == (
        [2, 3, 4, 5, 6], [3, 3, 4, 5, 6])
    assert parse_set("board.goals.first_marker_hp=2,3").path == (
        "overrides", "board", "goals", "first_marker_hp")
    for bad in ("cards.Insulin", "seed=1,2", "cards.\"Insulin\".atp"):
        with pytest.raises(ConfigError):
            parse_set(bad)


def test_variants_are_configs_of_the_grid(tmp_path):
    config = tmp_path / "base.toml"
    config.write_text(BASE.format(games=100) + '\n[sweep]\n"rules.grey_per_player" = [0, 1]\n')
    settings, vs = variants(config, ['cards."Insulin".atp=1,2,3'], tmp_path / "sw")
    assert [s.key for s in settings] == ['cards."Insulin".atp', "rules.grey_per_player"]
    assert len(vs) == 6 and vs[0].values == (1, 0) and vs[-1].values == (3, 1)
    last = load_run_config(vs[-1].config)
    assert {c.name: c.atp for c in last.game.cards}["Insulin"] == 3
    assert last.game.rules.grey_per_player == 1 and last.seed == 8
    assert len({v.name for v in vs}) == 6
    load_run_config(config)  # the base config with its [sweep] table still runs as it is


def test_bad_sweep_input_is_one_line(tmp_path):
    config = tmp_path / "base.toml"
    config.write_text(BASE.format(games=100))
    for args, words in ((["--set", 'cards."Insuline".atp=1,2'], "Insuline"),
                        (["--set", 'cards."Insulin".atp=1,-3'], "atp"),
                        ([], "nothing to sweep")):
        result = CliRunner().invoke(app, ["sweep", "--no-rungs", str(config), "--out", str(tmp_path / "x"), *args])
        assert result.exit_code == 2, result.output
        assert words in result.output and result.output.count("\n") == 1, result.output


def test_a_dearer_card_is_bought_less_and_worth_less(tmp_path):
    """Insulin from 1 ATP to 6: its pick rate and opening-hand effect fall beyond noise (under
    the planner: greedy's response to what completing a card costs is flat, an open defect).
    The planner hands a dear Insulin back more often than it did (kept 69% -> 32% of deals), so
    being dealt it costs less: 30,000 games resolve the fall."""
    config = tmp_path / "base.toml"
    config.write_text(BASE.format(games=30_000).replace("greedy", "planner"))
    out = tmp_path / "sw"
    result = CliRunner().invoke(app, ["sweep", "--no-rungs", str(config), "--set", 'cards."Insulin".atp=1,6',
                                      "--out", str(out), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    curves = pd.read_csv(out / "tables" / "sweep_curves.csv")
    last = curves[curves["variant"] == curves["variant"].iloc[-1]].set_index("figure")
    print("\n", last[["value", "diff_from_first", "diff_low", "diff_high"]])
    assert last.loc["pick rate (%)", "diff_high"] < 0
    assert last.loc["opening-hand effect (pp)", "diff_high"] < 0
    summary = pd.read_csv(out / "tables" / "sweep_summary.csv").set_index("figure")
    assert summary.loc["pick rate (%)", "slope_per_step"] < 0
    assert (out / "report.html").is_file() and (out / "runs").is_dir()
    # interrupted or repeated: the variants' runs are reused
    again = CliRunner().invoke(app, ["sweep", "--no-rungs", str(config), "--set", 'cards."Insulin".atp=1,6',
                                     "--out", str(out), "--quiet", "--workers", "1"])
    assert again.exit_code == 0, again.output


def test_a_crossing_is_confirmed_on_fresh_seeds(tmp_path):
    """Progesterone Receptor at 1 HP is weaker than its type and at 30 HP stronger (for the
    planner): its contrast crosses zero between them, so both variants are replayed on fresh seeds and the report gives the crossing
    found there as the finding's confirmation."""
    config = tmp_path / "base.toml"
    config.write_text(BASE.format(games=20_000).replace("greedy", "planner"))
    out = tmp_path / "sw"
    result = CliRunner().invoke(app, ["sweep", "--no-rungs", str(config), "--set", 'cards."Progesterone Receptor".hp=1,30',
                                      "--out", str(out), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "sweep.json").read_text())
    assert [v["run"] for v in plan["holdout"]["variants"]] == ["holdout/Progesterone Receptor.hp=1", "holdout/Progesterone Receptor.hp=30"]
    assert plan["holdout"]["seed"] != 8
    summary = pd.read_csv(out / "tables" / "sweep_summary.csv")
    found = summary[summary["figure"].str.contains("crosses 0")].iloc[0]
    held = summary[summary["figure"].str.contains("fresh seeds")]
    print("\n", summary[["figure", "crossing", "crossing_se"]].tail(2))
    assert 1 < found["crossing"] < 30 and len(held) == 1
    assert 1 < held["crossing"].iloc[0] < 30  # confirmed: the holdout crosses too
    md = (out / "report.md").read_text()
    assert "confirmed: " in md
    none = tmp_path / "none"
    result = CliRunner().invoke(app, ["sweep", "--no-rungs", str(config), "--set", 'cards."Progesterone Receptor".hp=1,30', "--no-holdout",
                                      "--out", str(none), "--quiet", "--workers", "1"])
    assert result.exit_code == 0 and "holdout" not in json.loads((none / "sweep.json").read_text())


def test_sweep_figures_have_no_overlapping_labels(tmp_path):
    from simcell.tools.sweep.report import _curves, _Figures
    from tests.test_report_figures import figure_problems

    rows = [{"figure": f, "x": x, "value": x * 2.0, "diff_from_first": x - 1.0, "diff_low": x - 1.5,
             "diff_high": x - 0.5} for f in _Figures(3, np.array([1, 2, 3]), 5).names
            for x in (1.0, 2.0, 3.0, 4.0)]
    fig = _curves(pd.DataFrame(rows), 'cards."Insulin".atp', [{"name": "Insulin.atp=1"}], True,
                  ("against its type (pp)", 2.5))
    assert not figure_problems(fig)


def test_the_seat_figures_track_each_seat_when_the_worst_seat_changes():
    """Planted: in A seat 0 is furthest from the fair share (+20 pp), in B seat 3 (-21 pp) while
    seat 0 falls to +5. A figure that followed "the worst seat" would read +20 -> -21, a change
    of -41 pp; each seat's distance moves as it did, and the largest distance 20 -> 21 pp."""
    from simcell.reports.paired import difference
    from simcell.tools.sweep.report import _Figures

    blocks, per_block = 8, 100
    rng = np.random.default_rng(4)

    def sums(shares):
        wins = np.array(shares) / 100 * per_block
        jitter = rng.normal(0, 0.3, (blocks, 4))
        return {"seat_win": wins + jitter - jitter.mean(axis=1, keepdims=True),
                "seat_rows": np.full((blocks, 4), per_block, float),
                "winning_hp": np.full(blocks, 40.0 * per_block), "games": np.full(blocks, float(per_block))}

    a, b = sums([45, 20, 20, 15]), sums([30, 35, 31, 4])
    stat = _Figures(None, np.array([], int), 4)
    d = difference(stat, a, b)
    got = dict(zip(stat.names, d.diff))
    assert got["seat 0 (first) − fair share (pp)"] == pytest.approx(-15, abs=0.5)
    assert got["seat 3 − fair share (pp)"] == pytest.approx(-11, abs=0.5)
    assert got["largest distance from the fair share (pp)"] == pytest.approx(1, abs=0.5)
    assert dict(zip(stat.names, d.a))["largest distance from the fair share (pp)"] == pytest.approx(20, abs=0.5)
    assert max(abs(x) for x in d.diff) < 16  # nothing reads as the -41 pp of a switched seat


@pytest.fixture(autouse=True)
def _here(monkeypatch, tmp_path: Path):
    monkeypatch.chdir(tmp_path)  # a sweep without --out writes beside the working directory


# -- issue 70: what a designer reads at a glance -------------------------------------------------
@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory) -> Path:
    """A two-variant sweep of a card whose name has a space, 600 games, no holdout or rungs."""
    folder = tmp_path_factory.mktemp("small-sweep")
    config = folder / "base.toml"
    config.write_text(BASE.format(games=600))
    out = folder / "sw"
    result = CliRunner().invoke(app, ["sweep", "--no-rungs", "--no-holdout", str(config), "--set",
                                      'cards."Insulin Receptor".atp=1,2', "--out", str(out), "--quiet",
                                      "--workers", "1"])
    assert result.exit_code == 0, result.output
    return out


def test_variant_labels_keep_the_spaces_of_a_card_name(small_sweep):
    """`Insulin Receptor.atp=1`, as the designer wrote it (it was `Insulin_Receptor.atp=1`), in the
    plan, the folders and the report."""
    plan = json.loads((small_sweep / "sweep.json").read_text())
    assert [v["name"] for v in plan["variants"]] == ["Insulin Receptor.atp=1", "Insulin Receptor.atp=2"]
    assert (small_sweep / "runs" / "Insulin Receptor.atp=2").is_dir()
    assert "Insulin Receptor.atp=2" in (small_sweep / "report.md").read_text()


def test_a_card_that_moved_by_its_contrast_is_shown_by_its_contrast(small_sweep, monkeypatch):
    """Planted: Insulin's contrast moves (−10.9 pp, −13.3 to −8.5) while its effect's interval
    holds zero (−1.21, −3.44 to +1.02). The row says it moved by its contrast and prints both;
    it printed the effect alone, a change indistinguishable from none."""
    import simcell.tools.sweep.report as sweep_report

    real = sweep_report.card_changes

    def planted(*args, **kwargs):
        c = real(*args, **kwargs)
        i = c.index[c["name"] == "Insulin"][0]
        c.loc[:, "moved"] = False
        c.loc[i, ["contrast_pp_diff", "contrast_pp_low", "contrast_pp_high", "contrast_q"]] = [-10.88, -13.31, -8.46, 1e-6]
        c.loc[i, ["open_hand_win_pp_diff", "open_hand_win_pp_low", "open_hand_win_pp_high", "effect_q"]] = [-1.21, -3.44, 1.02, 0.4]
        c.loc[i, "moved"] = True
        return c

    monkeypatch.setattr(sweep_report, "card_changes", planted)
    sweep_report.build_sweep(small_sweep)
    moved = pd.read_csv(small_sweep / "tables" / "sweep_moved.csv").to_dict("records")
    print("\n", moved)
    assert moved == [{"players": 3, "field": "greedy", "card": "Insulin", "moved by": "its contrast",
                      "against its type, pp (last − first)": "-10.88 (-13.31 to -8.46)",
                      "opening-hand effect, pp (last − first)": "-1.21 (-3.44 to +1.02)"}]
