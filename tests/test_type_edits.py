"""Edits of a whole card type (issue: a designer's questions at the level they ask them): every
card of a type set by `[overrides.types.T]` or `--set types.T.field=...`, by its name or the
game's, absolutely or relatively ("+1"), echoed card by card by `simcell validate`; a card's own
override applied on top; and `simcell compare` reporting each type's gap against the average card
in A and B with the paired difference."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from simcell.cli import app
from simcell.config.errors import ConfigError, card_type_named
from simcell.config.load import load_default_game, load_run_config
from simcell.config.variants import parse_set, variants
from simcell.tools.compare.report import build_compare
from simcell.runner.run import RunOptions, Runner

BASE = """
[run]
players = {players}
games = {games}
seed = 5

[[field]]
name = "planner"
policy = "planner"
"""
SHIPPED = {c.name: c for c in load_default_game().cards}
DETOX = sorted(n for n, c in SHIPPED.items() if c.type == "detox")


def _config(tmp_path: Path, extra: str, players: int = 4, games: int = 100, name: str = "c") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(BASE.format(players=players, games=games) + extra)
    return path


@pytest.mark.parametrize("written", ["detox", "Detoxification", "detoxification", "DETOX"])
def test_a_type_is_named_by_either_name(written):
    assert card_type_named(written) == "detox"
    assert card_type_named("Enzymes") == "enzyme" and card_type_named("protein hormone receptors") == "protein_receptor"
    assert card_type_named("toxins") is None


def test_a_type_override_sets_every_card_of_the_type_and_a_card_override_goes_on_top(tmp_path):
    config = _config(tmp_path, '\n[overrides.cards."Sulfation"]\natp = "+1"\n'
                               '[overrides.types.Detoxification]\natp = "+1"\nhp = 2\n')
    game = load_run_config(config).game
    got = {c.name: c for c in game.cards}
    for name in DETOX:
        extra = 2 if name == "Sulfation" else 1  # the type's +1, then Sulfation's own +1
        assert got[name].atp == SHIPPED[name].atp + extra and got[name].hp == 2
    assert all(got[n] == c for n, c in SHIPPED.items() if c.type != "detox")
    result = CliRunner().invoke(app, ["validate", str(config)])
    assert result.exit_code == 0, result.output
    echoed = [line for line in result.output.splitlines() if "types.detox.atp +1" in line]
    assert len(echoed) == len(DETOX) == 7
    assert "card 'Sulfation': atp 0 -> 1 (types.detox.atp +1)" in result.output


def test_sweep_set_takes_a_type_and_relative_values(tmp_path):
    setting = parse_set("types.Detoxification.atp=+0,+1,3")
    assert setting.path == ("overrides", "types", "Detoxification", "atp")
    assert setting.values == ("+0", "+1", 3)
    config = _config(tmp_path, "")
    _, found = variants(config, ["types.detox.atp=+0,+1"], tmp_path / "sweep")
    assert [v.name for v in found] == ["detox.atp=+0", "detox.atp=+1"]
    games = [load_run_config(v.config).game for v in found]
    assert {c.name: c.atp for c in games[0].cards} == {n: c.atp for n, c in SHIPPED.items()}
    assert all(c.atp == SHIPPED[c.name].atp + (c.type == "detox") for c in games[1].cards)
    with pytest.raises(ConfigError, match="no card type 'toxins'.*detox \\(Detoxification\\)"):
        variants(config, ["types.toxins.atp=+1"], tmp_path / "bad")
    # a type written where a card goes: the message says where a type goes
    with pytest.raises(ConfigError, match="no card named 'detox'; 'detox' is a card type: \\[overrides.types.detox\\]"):
        variants(config, ["cards.detox.atp=+1"], tmp_path / "as-card")


def test_compare_reports_each_types_gap_in_a_and_b(tmp_path):
    a = _config(tmp_path, "", games=3000, name="a")
    b = _config(tmp_path, '\n[overrides.types.detox]\nhp = "+3"\n', games=3000, name="b")
    for c in (a, b):
        Runner(c, RunOptions(out=tmp_path / c.stem, workers=1)).run()
    out = build_compare(tmp_path / "a", tmp_path / "b", tmp_path / "cmp")
    types = pd.read_csv(out / "tables" / "types.csv").set_index("type")
    detox = types.loc["detox"]
    assert detox["gap_pp_diff"] > 0 and detox["gap_pp_low"] > 1.0 and bool(detox["moved"])
    assert detox["gap_pp_B"] - detox["gap_pp_A"] == pytest.approx(detox["gap_pp_diff"])
    assert detox["gap_pp_low_A"] < detox["gap_pp_A"] < detox["gap_pp_high_A"]
    assert {"verdict_A", "verdict_B"} <= set(types.columns)
    # the other types lose what the Detoxification cards gain against the average card
    assert (types.drop(index=["detox"])["gap_pp_diff"] < 0).sum() >= 4
    report = (out / "report.md").read_text()
    assert "Card types" in report and "Detoxification (4p · planner: " in report
    # each card's contrast in A and B with its verdict beside the change; a run of one field names
    # it in the titles, not in a column of one value
    cards = pd.read_csv(out / "tables" / "cards.csv")
    assert {"verdict_A", "verdict_B", "contrast_pp_low_A", "contrast_pp_high_B"} <= set(cards.columns)
    assert "| players | name | type |" in report and "vs type A → B, pp" in report
    assert "Cards, B − A, 4p · planner" in report


def test_the_type_figure_has_no_overlapping_labels():
    import numpy as np

    from simcell.tools.compare.report import _type_figure
    from simcell.vocabulary import CARD_TYPES
    from tests.test_report_figures import figure_problems

    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 3, 7), rng.normal(0, 3, 7)
    t = pd.DataFrame({"type": list(CARD_TYPES), "gap_pp_A": a, "gap_pp_low_A": a - 1, "gap_pp_high_A": a + 1,
                      "gap_pp_B": b, "gap_pp_low_B": b - 1, "gap_pp_high_B": b + 1,
                      "moved": np.abs(b - a) > 2})
    assert not figure_problems(_type_figure(t, 1.0, "Card types, A and B, 4p · planner"))


def test_compare_prints_the_type_gaps_and_refuses_mismatched_configs_before_playing(tmp_path):
    a = _config(tmp_path, "", games=400, name="a")
    b = _config(tmp_path, '\n[overrides.types.detox]\natp = "+1"\n', games=400, name="b")
    out = tmp_path / "cmp"
    result = CliRunner().invoke(app, ["compare", "--no-rungs", str(a), str(b), "--out", str(out), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("7 values differ (A → B): ") and "card types against the average card" in result.output
    line = next(x for x in result.output.splitlines() if "Detoxification" in x and "B − A" in x)
    assert line.startswith("  4p · planner Detoxification") and "→" in line
    for other, words in ((_config(tmp_path, "", players=3, games=400, name="p3"), "player counts (A [4], B [3])"),
                         (_config(tmp_path, "", games=500, name="g500"), "differ in games (400 and 500)")):
        folder = tmp_path / f"refused-{other.stem}"
        result = CliRunner().invoke(app, ["compare", "--no-rungs", str(a), str(other), "--out", str(folder), "--quiet"])
        assert result.exit_code == 2 and words in result.output, result.output
        assert result.output.strip().count("\n") == 0 and not (folder / "a").exists()
    greedy = tmp_path / "greedy.toml"
    greedy.write_text(a.read_text().replace('policy = "planner"', 'policy = "greedy"'))
    result = CliRunner().invoke(app, ["compare", "--no-rungs", str(a), str(greedy), "--out", str(tmp_path / "g"), "--quiet"])
    assert result.exit_code == 2 and "policy fields" in result.output and not (tmp_path / "g" / "a").exists()


def test_a_type_sweep_draws_the_types_gap_and_its_crossing(tmp_path):
    config = _config(tmp_path, "", games=2000)
    out = tmp_path / "sweep"
    result = CliRunner().invoke(app, ["sweep", "--no-rungs", str(config), "--set", "types.Detoxification.hp=-1,+0,+2",
                                      "--no-holdout", "--out", str(out), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    curves = pd.read_csv(out / "tables" / "sweep_curves.csv")
    gap = curves[curves["figure"] == "Detoxification against the average card (pp)"].sort_values("x")
    assert gap["x"].tolist() == [-1, 0, 2] and gap["value"].is_monotonic_increasing
    assert gap["value"].iloc[0] < 0 < gap["value"].iloc[-1]
    summary = pd.read_csv(out / "tables" / "sweep_summary.csv")
    crossing = summary[summary["figure"] == "Detoxification: value where its gap against the average card crosses 0"]
    assert len(crossing) == 1 and -1 < crossing["crossing"].iloc[0] < 2
    assert (out / "figures" / "sweep_4p_planner.png").is_file()
