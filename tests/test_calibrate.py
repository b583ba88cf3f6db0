"""`simcell calibrate` (designer tools issue): +1 starting ATP measured per player count, and
effects read in ATP by compare and sweep."""

from __future__ import annotations

import json

import pandas as pd
from typer.testing import CliRunner

from simcell.cli import app

BASE = """
[run]
players = 3
games = 6000
seed = 12

[[field]]
name = "greedy"
policy = "greedy"
"""


def test_one_more_atp_is_worth_something_and_compare_reads_it(tmp_path):
    config = tmp_path / "base.toml"
    config.write_text(BASE)
    cal = tmp_path / "cal"
    result = CliRunner().invoke(app, ["calibrate", str(config), "--out", str(cal), "--quiet",
                                      "--workers", "1"])
    assert result.exit_code == 0, result.output
    row = json.loads((cal / "calibration.json").read_text())["rows"][0]
    print("\n", {k: round(v, 3) for k, v in row.items() if isinstance(v, float)})
    assert row["players"] == 3 and row["hp_low"] > 0  # one more ATP: more HP, beyond noise
    assert row["win_pp_per_atp"] > 0
    plan = json.loads((cal / "calibrate.json").read_text())
    assert len(plan["seats"]) == 3  # each seat in turn
    dearer = tmp_path / "dearer.toml"
    dearer.write_text(BASE + '\n[overrides.cards."Insulin"]\natp = 3\n')
    out = tmp_path / "cmp"
    result = CliRunner().invoke(app, ["compare", "--no-rungs", str(config), str(dearer), "--out", str(out), "--quiet",
                                      "--workers", "1", "--calibration", str(cal)])
    assert result.exit_code == 0, result.output
    md = (out / "report.md").read_text()
    assert "| in ATP |" in md and "ATP |" in md
    head = pd.read_csv(out / "tables" / "headline.csv")
    assert len(head) == 3 * 2 + 3
    missing = CliRunner().invoke(app, ["compare", str(out / "a"), str(out / "b"), "--out",
                                       str(tmp_path / "x"), "--calibration", str(tmp_path)])
    assert missing.exit_code == 2 and "simcell calibrate" in missing.output


def test_the_seat_band_in_atp_follows_the_calibration(tmp_path):
    """seat_win_share_atp = 2 with a calibration: every seat verdict is read against twice the
    calibrated win share per ATP at that player count; without a calibration, one line."""
    config = tmp_path / "base.toml"
    config.write_text(BASE.replace("games = 6000", "games = 2000"))
    cal = tmp_path / "cal"
    result = CliRunner().invoke(app, ["calibrate", str(config), "--out", str(cal), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    per_atp = json.loads((cal / "calibration.json").read_text())["rows"][0]["win_pp_per_atp"]
    banded = tmp_path / "banded.toml"
    banded.write_text(BASE.replace("games = 6000", "games = 2000")
                      + '\n[report]\ncalibration = "cal"\n[report.bands]\nseat_win_share_atp = 2\n')
    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "--no-rungs", str(banded), "--out", str(run), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    verdicts = pd.read_csv(run / "report" / "tables" / "verdicts.csv")
    seat = verdicts[verdicts["figure"].str.startswith("seat win share")]
    assert abs(seat["band"].iloc[0] - round(2 * per_atp, 4)) < 1e-9
    md = (run / "report" / "report.md").read_text()
    assert f"±2 ATP (≈ ±{2 * per_atp:.2f} pp at 3 players, calibrated)" in md
    # the same config without its calibration, or a calibration without this player count
    for report, words in (("[report.bands]\nseat_win_share_atp = 2\n", "calibration"),
                          ('[report]\ncalibration = "cal"\n[report.bands]\nseat_win_share_atp = 2\n', "4 players")):
        bad = tmp_path / "bad.toml"
        bad.write_text(BASE.replace("players = 3", "players = 4") + "\n" + report
                       if words == "4 players" else BASE + "\n" + report)
        result = CliRunner().invoke(app, ["validate", str(bad)])
        assert result.exit_code == 2 and words in result.output and result.output.count("\n") == 1, result.output
