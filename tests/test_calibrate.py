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
    result = CliRunner().invoke(app, ["compare", str(config), str(dearer), "--out", str(out), "--quiet",
                                      "--workers", "1", "--calibration", str(cal)])
    assert result.exit_code == 0, result.output
    md = (out / "report.md").read_text()
    assert "| in ATP |" in md and "ATP |" in md
    head = pd.read_csv(out / "tables" / "headline.csv")
    assert len(head) == 3 * 2 + 3
    missing = CliRunner().invoke(app, ["compare", str(out / "a"), str(out / "b"), "--out",
                                       str(tmp_path / "x"), "--calibration", str(tmp_path)])
    assert missing.exit_code == 2 and "simcell calibrate" in missing.output
