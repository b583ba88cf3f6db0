"""The run report's changes quote what the designer tools measured (issue 49): a `simcell seats`
folder's causes, a `simcell sweep` of a card type, a `simcell calibrate` folder's ATP worth, each
number exactly as the tool's own tables hold it; a lever nothing measured keeps its command; a
folder of another game is set aside and said so; a folder that is no tool's is one line."""

from __future__ import annotations


import pandas as pd
import pytest
from typer.testing import CliRunner

from simcell.cli import app
from simcell.reports.data import ReportError, RunData
from simcell.reports.measured import find
from simcell.reports.sections.summary import changes

CONFIG = """
[run]
players = 3
games = 3000
seed = 23

[[field]]
name = "planner"
policy = "planner"
"""


def _ok(args: list[str]) -> None:
    result = CliRunner().invoke(app, args + ["--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("measured")
    config = root / "c.toml"
    config.write_text(CONFIG)
    other = root / "other.toml"
    other.write_text(CONFIG + '[overrides.cards."Insulin"]\natp = 3\n')
    _ok(["run", "--no-rungs", str(config), "--out", str(root / "run")])
    _ok(["seats", str(config), "--out", str(root / "seats"), "--no-search"])
    _ok(["sweep", "--no-rungs", str(config), "--set", "types.Enzymes.hp=+0,+1,+2", "--no-holdout", "--out", str(root / "sweep")])
    _ok(["calibrate", str(config), "--out", str(root / "calibrate")])
    _ok(["seats", str(other), "--out", str(root / "seats-other"), "--no-search"])
    return root


# a game out of balance, as the report's tables would say it: the first seat far ahead, Enzymes
# below the average card, one card out of line within its type
TABLES = {
    "seat_advantage": pd.DataFrame([{"players": 3, "field": "planner", "seat": 0, "above_fair_pp": 12.0,
                                     "verdict": "out of band"}]),
    "card_types": pd.DataFrame([{"players": 3, "field": "planner", "type": "enzyme", "gap_pp": -3.5,
                                 "verdict": "out of band"}]),
    "card_strength": pd.DataFrame([{"players": 3, "field": "planner", "name": "Insulin", "contrast_pp": 4.0,
                                    "flagged": True}]),
}


def test_the_changes_quote_each_tools_figures_as_its_tables_hold_them(folders):
    measured = find(RunData(folders / "run"), [folders / "seats", folders / "sweep", folders / "calibrate"])
    assert [t.tool for t in measured.tools] == ["seats", "sweep", "calibrate"] and not measured.skipped
    seats, types, card = changes(TABLES, "c.toml", measured)
    causes = pd.read_csv(folders / "seats" / "tables" / "seat_causes.csv")
    rotate = causes[(causes["variant"] == "rotating turn order") & (causes["seat"] == 0)].iloc[0]
    assert "measured: " in seats and "simcell seats c.toml" not in seats
    assert f"rotating turn order: the first seat {rotate.diff_pp:+.1f} pp ({rotate.diff_low:+.1f} to {rotate.diff_high:+.1f})" in seats
    after = causes[causes["variant"] == "rotating turn order"]
    far = after.loc[(after["win_share_pp"] - 100 / 3).abs().idxmax()]
    assert f"then seat {int(far.seat)} the furthest from the fair share ({far.win_share_pp - 100 / 3:+.1f} pp)" in seats
    per_atp = pd.read_csv(folders / "calibrate" / "tables" / "calibration.csv")["win_pp_per_atp"].iloc[0]
    assert f"about {12.0 / per_atp:+.1f} starting ATP (`simcell calibrate`, calibrate)" in seats
    slope = pd.read_csv(folders / "sweep" / "tables" / "sweep_summary.csv")
    gap = slope[slope["figure"].str.endswith("against the average card (pp)")].iloc[0]
    assert types.startswith("**Enzymes**") and f"measured: their gap moves {gap.slope_per_step:+.2f} pp" in types
    assert "per hp step" in types and "(`simcell sweep`, sweep)" in types
    # Insulin: nothing measured it, so the command that would
    assert "simcell sweep c.toml --set 'cards.\"Insulin\".atp=+0,+1,+2'" in card


def test_a_folder_of_another_game_is_set_aside_and_a_non_tool_folder_is_one_line(folders):
    run = RunData(folders / "run")
    measured = find(run, [folders / "seats-other"])
    assert measured.tools == [] and "seats-other measured another game" in measured.skipped[0]
    seats = changes(TABLES, "c.toml", measured)[0]
    assert "simcell seats c.toml" in seats  # unmeasured: the command
    with pytest.raises(ReportError, match="is not a simcell seats, sweep, calibrate, probe or ladder folder"):
        find(run, [folders / "run"])
    result = CliRunner().invoke(app, ["report", str(folders / "run"), "--measured", str(folders / "run")])
    assert result.exit_code != 0 and len(result.output.strip().splitlines()) == 1


def test_simcell_report_reads_measured_folders(folders, tmp_path):
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["report", str(folders / "run"), "--out", str(out),
                                      "--measured", str(folders / "seats-other")])
    assert result.exit_code == 0, result.output
    assert "seats-other measured another game" in (out / "report.md").read_text()
