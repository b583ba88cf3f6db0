"""Runs on disk (issue 70: an afternoon of ordinary use filled 1.2 GB of run folders with no word
about it and no way to prune): a run says its size when it ends; `simcell prune` keeps only a
finished run's summaries or removes old runs whole, lists what would go with --dry-run, touches
nothing else, and a pruned run's records come back bit for bit by resuming it."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from simcell.cli import app

CONFIG = """
[run]
players = 3
games = 600
seed = 5

[[field]]
name = "random"
policy = "random"
"""


def _cli(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> tuple[Path, Path, str]:
    """One finished run with its report (the config, the run directory, simcell run's output)."""
    folder = tmp_path_factory.mktemp("prune")
    config = folder / "c.toml"
    config.write_text(CONFIG)
    result = _cli("run", config, "--out", folder / "run", "--workers", "1", "--no-rungs")
    assert result.exit_code == 0, result.output
    return config, folder / "run", result.output


def _copy(run: Path, to: Path, ended: datetime | None = None, status: str | None = None) -> Path:
    shutil.copytree(run, to)
    meta = json.loads((to / "run.json").read_text())
    if ended is not None:
        meta["completed"] = ended.isoformat(timespec="seconds")
    if status is not None:
        meta["status"] = status
    (to / "run.json").write_text(json.dumps(meta))
    return to


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _records(root: Path) -> dict[str, pd.DataFrame]:
    return {t: pd.read_parquet(root / t).sort_values(["game"] + (["seat"] if t == "players" else []))
            .reset_index(drop=True) for t in ("players", "games")}


def _one_line_error(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for w in words:
        assert w in result.stderr, (w, result.stderr)


def test_a_run_says_its_size_when_it_ends(made):
    """simcell run's last summary line gives the run directory's size, and run.json keeps the
    size it had when its games ended (before the report)."""
    _, run, output = made
    line = next(x for x in output.splitlines() if "run directory:" in x)
    shown = re.search(rf"run directory: {re.escape(str(run))} \((\d+\.\d) (kB|MB)\)$", line)
    assert shown is not None, line
    total = sum(p.stat().st_size for p in run.rglob("*") if p.is_file())
    assert abs(float(shown[1]) * (1000 if shown[2] == "kB" else 1e6) - total) <= 0.05 * total
    meta = json.loads((run / "run.json").read_text())
    records = sum(p.stat().st_size for t in ("players", "games", "blocks") for p in (run / t).rglob("*"))
    assert records < meta["disk_bytes"] < total  # the report came after


def test_keep_summaries_drops_the_records_and_resume_plays_them_again(made, tmp_path):
    config, made_run, _ = made
    run = _copy(made_run, tmp_path / "runs" / "r1")
    before, records = _files(run), _records(run)
    dropped = {k for k in before if k.split("/")[0] in ("players", "games", "partial")}
    assert dropped and any(k.startswith("report/") for k in before)

    dry = _cli("prune", tmp_path / "runs", "--keep-summaries", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert f"would drop the records of {run}: games/, partial/, players/ (kept: blocks/, " \
           "cards.csv, config.toml, laureates/, report/, resolved.json, run.json)" in dry.stdout
    assert "nothing removed" in dry.stdout and _files(run) == before

    done = _cli("prune", tmp_path / "runs", "--keep-summaries")
    assert done.exit_code == 0, done.output
    assert f"dropped the records of {run}" in done.stdout and "freed" in done.stdout
    after = _files(run)
    assert set(after) == set(before) - dropped
    assert all(after[k] == before[k] for k in after if k != "run.json")  # nothing else touched
    meta = json.loads(after["run.json"])
    assert meta["pruned"]["kept"] == "summaries" and meta["status"] == "complete"
    # the size it has now (measured just before run.json took its last lines)
    assert abs(meta["disk_bytes"] - sum(len(v) for v in after.values())) < 200
    _one_line_error(_cli("report", run), "records were pruned", f"--resume {run}")
    assert _cli("prune", run, "--keep-summaries").stdout.startswith("freed 0 B")  # nothing left

    resumed = _cli("run", config, "--resume", run, "--workers", "1", "--no-rungs", "--quiet")
    assert resumed.exit_code == 0, resumed.output
    for name, table in _records(run).items():
        pd.testing.assert_frame_equal(table, records[name])
    assert "pruned" not in json.loads((run / "run.json").read_text())
    assert _cli("report", run).exit_code == 0


def test_old_runs_go_whole_by_age_or_by_number(made, tmp_path):
    _, made_run, _ = made
    now = datetime.now(UTC)
    runs = tmp_path / "runs"
    old = _copy(made_run, runs / "old", now - timedelta(days=40))
    middle = _copy(made_run, runs / "middle", now - timedelta(days=10))
    new = _copy(made_run, runs / "new", now - timedelta(hours=1))
    playing = _copy(made_run, runs / "playing", now - timedelta(days=50), status="running")
    (runs / "notes").mkdir()
    (runs / "notes" / "todo.txt").write_text("not a run")
    (runs / "README").write_text("not a run either")

    dry = _cli("prune", runs, "--older-than", "30d", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert f"would remove {old}: the whole run" in dry.stdout and str(middle) not in dry.stdout
    assert f"left alone {playing}" in dry.stderr and "running" in dry.stderr
    assert all(p.is_dir() for p in (old, middle, new, playing))

    assert _cli("prune", runs, "--older-than", "30d").exit_code == 0
    assert not old.exists() and middle.is_dir() and new.is_dir() and playing.is_dir()
    by_number = _cli("prune", runs, "--keep-newest", "1")
    assert by_number.exit_code == 0, by_number.output
    assert not middle.exists() and new.is_dir() and playing.is_dir()
    assert (runs / "notes" / "todo.txt").read_text() == "not a run" and (runs / "README").is_file()


def test_a_runs_rungs_go_with_it(made, tmp_path):
    _, made_run, _ = made
    outer = _copy(made_run, tmp_path / "runs" / "x")
    inner = _copy(made_run, outer / "rungs" / "fitted")
    kept = _cli("prune", outer, "--keep-summaries")
    assert kept.exit_code == 0, kept.output
    assert f"dropped the records of {outer}" in kept.stdout and f"dropped the records of {inner}" in kept.stdout
    assert not (inner / "players").exists() and (inner / "blocks").is_dir()
    dry = _cli("prune", tmp_path / "runs", inner, "--older-than", "0h", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert f"would remove {outer}: the whole run and the 1 run(s) inside it" in dry.stdout
    assert dry.stdout.count("would remove") == 1  # the inner run once, with its outer run


@pytest.mark.parametrize(("args", "words"), [
    (["missing-folder", "--keep-summaries"], ("missing-folder", "no such file")),
    (["c.toml", "--keep-summaries"], ("c.toml", "not a directory")),
    (["empty", "--keep-summaries"], ("empty", "holds no simcell run directory")),
    (["runs", "--older-than", "3 months"], ("--older-than '3 months'", "30d")),
    (["runs"], ("say what to prune", "--keep-summaries", "--older-than", "--keep-newest")),
])
def test_bad_input_is_one_line(made, tmp_path, monkeypatch, args, words):
    _, made_run, _ = made
    _copy(made_run, tmp_path / "runs" / "r")
    (tmp_path / "empty").mkdir()
    (tmp_path / "c.toml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    before = _files(tmp_path)
    _one_line_error(_cli("prune", *args), *words)
    assert _files(tmp_path) == before
