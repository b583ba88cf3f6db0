"""Golden game logs: stored `simcell replay` outputs, replayed and diffed on every run. A change
to the rules, the chance streams or the log format shows up here line by line. To accept a
deliberate change, run with SIMCELL_UPDATE_GOLDEN=1 and review the diff in git."""

from __future__ import annotations

import difflib
import os

import pytest
from typer.testing import CliRunner

from simcell.cli import app

from .conftest import CONFIGS, ROOT

GOLDEN = ROOT / "tests" / "golden"
CASES = [
    ("5p.toml", 0, None),
    ("2p.toml", 1, None),
    ("all-counts.toml", 4, 3),
    ("override-example.toml", 2, None),
]


@pytest.mark.parametrize(("config", "game", "players"), CASES, ids=[f"{c}-g{g}" for c, g, _ in CASES])
def test_replay_matches_golden_log(config: str, game: int, players: int | None) -> None:
    args = ["replay", str(CONFIGS / config), "--game", str(game)]
    if players is not None:
        args += ["--players", str(players)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    path = GOLDEN / f"{config.removesuffix('.toml')}-game{game}.log"
    if os.environ.get("SIMCELL_UPDATE_GOLDEN"):
        path.write_text(result.output)
    expected = path.read_text()
    if result.output != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(True), result.output.splitlines(True), "golden", "now", n=2))
        pytest.fail(f"{path.name} differs from the golden log:\n{diff[:4000]}")
