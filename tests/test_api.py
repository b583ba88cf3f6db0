"""The Python front door (simcell.api): the notebook that uses it runs end to end; a run played,
read and reported through it gives what the command line gives; bad input is one line; and the
test suite reaches simcell through the front door, never the command line's private names."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from simcell import api
from simcell.cli import app

ROOT = Path(__file__).resolve().parent.parent

CONFIG = """
[run]
players = [2, 3]
games = 600
seed = 11

[[field]]
name = "planner"
policy = "planner"

[report]
blocks = 50
rungs = []
"""


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("api") / "c.toml"
    path.write_text(CONFIG)
    return path


@pytest.fixture(scope="module")
def played(config) -> api.Played:
    return api.play(config, out=config.parent / "run", workers=1, quiet=True)


def test_a_run_played_through_the_front_door_is_the_command_lines(played, config, tmp_path):
    """The same config played by `simcell run` gives the same records, table for table."""
    assert played.games_played == 1200 and played.report == played.root / "report"
    out = tmp_path / "cli"
    result = CliRunner().invoke(app, ["run", str(config), "-o", str(out), "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    ours, theirs = api.load(played.root), api.load(out)
    for p in (2, 3):
        pd.testing.assert_frame_equal(ours.players(p), theirs.players(p))
        pd.testing.assert_frame_equal(ours.games(p), theirs.games(p))
    assert api.tables(played.root).keys() == api.tables(out).keys()
    pd.testing.assert_frame_equal(api.tables(played.root)["seat_advantage"],
                                  api.tables(out)["seat_advantage"])


def test_a_run_reads_as_dataframes(played):
    run = api.load(played.root)
    assert list(run.segments["players"]) == [2, 3]
    three = run.players(3, columns=["win_share", "final_hp"])
    assert len(three) == 600 * 3 and list(three["seat"][:3]) == [0, 1, 2]
    # every game's win shares add up to one (ties split)
    assert np.allclose(three["win_share"].to_numpy().reshape(-1, 3).sum(axis=1), 1.0)
    assert len(run.games(2)) == 600
    seat = run.aggregate("seat")
    assert {"players", "field", "block"} <= set(seat.columns)
    rebuilt = api.report(played.root, played.root / "again")
    assert (rebuilt / "report.html").is_file()
    assert set(api.tables(rebuilt)) == set(run.tables())


@pytest.mark.parametrize(("call", "words"), [
    (lambda d: api.play(d / "missing.toml", quiet=True), "missing.toml"),
    (lambda d: api.load(d), "not a simcell run directory"),
    (lambda d: api.tables(d), "no tables/ folder"),
    (lambda d: api.play(d / "bad.toml", quiet=True), "protein"),
])
def test_bad_input_is_one_line(tmp_path, call, words):
    (tmp_path / "bad.toml").write_text(CONFIG.replace('policy = "planner"', 'policy = "planner"\nprotein = 3'))
    with pytest.raises(api.SimcellError) as err:
        call(tmp_path)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_two_runs_compare_through_the_front_door(played, tmp_path):
    dearer = tmp_path / "dearer.toml"
    dearer.write_text(CONFIG + '\n[overrides.cards."Insulin"]\natp = 3\n')
    b = api.play(dearer, out=tmp_path / "b", workers=1, quiet=True, report=False)
    folder = api.compare(played.root, b.root, tmp_path / "cmp", quiet=True)
    diffs = api.tables(folder)["differences"]
    assert list(diffs["name"]) == ["Insulin"] and list(diffs["B"].astype(str)) == ["3"]
    cards = api.tables(folder)["cards"].set_index(["players", "name"])
    assert (cards.loc[(slice(None), "Insulin"), "pick_rate_pct_diff"] < 0).all()


def test_the_notebook_runs_end_to_end_on_the_front_door(tmp_path, monkeypatch):
    """Every code cell of notebooks/explore_run.ipynb in order, as a kernel would: it plays,
    reads, checks two report figures against the report's tables and compares a change."""
    import matplotlib

    matplotlib.use("Agg")
    nb = json.loads((ROOT / "notebooks" / "explore_run.ipynb").read_text())
    monkeypatch.setenv("SIMCELL_NOTEBOOK_GAMES", "1500")
    monkeypatch.setenv("SIMCELL_NOTEBOOK_WORKERS", "1")
    monkeypatch.setenv("SIMCELL_NOTEBOOK_OUT", str(tmp_path))
    monkeypatch.chdir(ROOT / "notebooks")
    namespace: dict = {}
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    sources = "".join("".join(c["source"]) for c in cells)
    assert "api.play(" in sources and "api.load(" in sources and "api.compare(" in sources
    for cell in cells:
        exec(compile("".join(cell["source"]), "explore_run.ipynb", "exec"), namespace)
    assert namespace["gap"].index[0].startswith("hp_")
    assert namespace["played"].root == tmp_path / "run"
    assert (tmp_path / "compare" / "report.html").is_file()
    assert os.environ["SIMCELL_NOTEBOOK_OUT"] == str(tmp_path)


def private_cli_imports(sources: dict[str, str]) -> list[str]:
    """Imports of the command line's modules other than its app, or of a private name from it."""
    bad = []
    for name, source in sources.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("simcell.cli"):
                for alias in node.names:
                    public = (node.module == "simcell.cli" and alias.name == "app") or (
                        node.module == "simcell.cli.reference" and alias.name == "markdown")
                    if not public:
                        bad.append(f"{name}:{node.lineno} from {node.module} import {alias.name}")
            elif isinstance(node, ast.Import):
                bad += [f"{name}:{node.lineno} import {a.name}" for a in node.names
                        if a.name.startswith("simcell.cli.")]
    return bad


def test_the_tests_reach_simcell_through_its_front_door():
    sources = {p.name: p.read_text() for p in (ROOT / "tests").rglob("*.py")}
    assert private_cli_imports(sources) == []
    planted = {"t.py": "def f():\n    from simcell.cli.common import _plays\n"}
    assert private_cli_imports(planted) == ["t.py:2 from simcell.cli.common import _plays"]
