"""Values that must fit the action code's fields are bounded at the boundary (vocabulary.py layout)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from simcell.cli import app

BASE = '[run]\nplayers = 3\ngames = 10\nseed = 1\n[[field]]\npolicy = "random"\n'


@pytest.mark.parametrize(
    ("extra", "key", "fragment"),
    [
        ("[rules]\nmax_batch = 5000\n", "rules.max_batch", "must be at most 4095"),
        ("[rules]\nbudding_locations = { golgi = 16 }\n", "rules.budding_locations.golgi",
         "must be at most 15"),
    ],
)
def test_values_beyond_the_action_code_are_rejected(tmp_path: Path, extra: str, key: str,
                                                     fragment: str) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text(BASE + extra)
    result = CliRunner().invoke(app, ["validate", str(cfg)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{cfg}: {key}: " in lines[0] and fragment in lines[0]


def test_missing_supply_table_is_an_error(tmp_path: Path) -> None:
    from simcell.config.load import shipped_data_path

    text = shipped_data_path("board").read_text()
    start = text.index("supply = {")
    board = text[:start] + text[text.index("\n", start) + 1:]
    (tmp_path / "board.toml").write_text(board)
    cfg = tmp_path / "run.toml"
    cfg.write_text(BASE + '[data]\nboard = "board.toml"\n')
    result = CliRunner().invoke(app, ["validate", str(cfg)])
    assert result.exit_code == 2
    assert "components.supply: missing; expected a table" in result.stderr
