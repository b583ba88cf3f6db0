"""`simcell run` (runner issue): identical records and block aggregates across work-unit sizes,
worker counts and the Dask backend; resume after an interruption; refusals and clear errors;
multi-count runs; duplicate mode; block aggregates that agree with the records."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simcell.runner.store import RunDirError
from simcell.runner.run import RunError, RunOptions, Runner
from simcell.runner.store import RunDir

CONFIG = """
[run]
players = {players}
games = {games}
seed = {seed}
{extra}

[[field]]
name = "random"
policy = "random"
"""


def write_config(folder: Path, players=3, games=260, seed=7, extra="", fields: str = "") -> Path:
    path = folder / "run.toml"
    text = CONFIG.format(players=players, games=games, seed=seed, extra=extra) + fields
    path.write_text(textwrap.dedent(text))
    return path


def run(config: Path, out: Path, **opts) -> Runner:
    opts.setdefault("workers", 1)
    runner = Runner(config, RunOptions(out=out, **opts))
    outcome = runner.run()
    assert outcome.status == "complete"
    return runner


def tables(root: Path) -> dict[str, pd.DataFrame]:
    """Every table of a run directory, sorted so that equal runs give equal frames."""
    out = {}
    for name in ("players", "games"):
        df = pd.read_parquet(root / name)
        for col in ("players", "field"):
            df[col] = df[col].astype(int)
        keys = ["players", "field", "game"] + (["seat"] if name == "players" else [])
        out[name] = df.sort_values(keys).reset_index(drop=True)
    for path in sorted((root / "blocks").glob("*.parquet")):
        df = pd.read_parquet(path)
        out[f"blocks/{path.stem}"] = df.sort_values(list(df.columns)).reset_index(drop=True)
    return out


def assert_same_run(a: Path, b: Path) -> None:
    ta, tb = tables(a), tables(b)
    assert ta.keys() == tb.keys()
    for name in ta:
        pd.testing.assert_frame_equal(ta[name], tb[name], check_dtype=False, obj=name)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, Path]:
    """A 3-player run played in one process with the planned chunks: (config, run dir)."""
    folder = tmp_path_factory.mktemp("reference")
    config = write_config(folder)
    run(config, folder / "out")
    return config, folder / "out"


def test_run_directory_contents(reference):
    config, root = reference
    meta = json.loads((root / "run.json").read_text())
    assert meta["status"] == "complete" and meta["games"] == 260
    assert meta["record_schema_version"] >= 1 and len(meta["code_hash"]) == 64
    resolved = json.loads((root / "resolved.json").read_text())
    assert resolved["seed"] == 7 and resolved["segments"][0]["blocks"] == 64
    assert resolved["game"]["content_hash"] == meta["content_hash"]
    assert (root / "config.toml").read_text() == config.read_text()
    t = tables(root)
    for absent in ("shortfall_atp", "detox_removed", "first_player_round_1"):  # zero by rule here
        assert absent not in t["games"].columns
    assert len(t["players"]) == 260 * 3 and len(t["games"]) == 260
    assert t["games"]["game"].tolist() == list(range(260))
    # no all-zero columns in the records, besides the keys (a one-policy field is policy 0,
    # rotation 0, and game 0 is game 0)
    for name in ("players", "games"):
        df = t[name].drop(columns=["players", "field", "game", "rotation", "policy"], errors="ignore")
        rare = {"reshuffles"}  # zero in most short runs, not by construction
        # zero by rule unless rules.starting_hp_by_seat gives a seat HP: one entry of the HP
        # source axis, which the records keep whole
        rare.add("hp_start")
        zero = [c for c in df.columns if (df[c] == 0).all() and c not in rare]
        assert not zero, f"{name}: all-zero columns {zero}"


def test_block_aggregates_agree_with_records(reference):
    _, root = reference
    t = tables(root)
    players = t["players"]
    blocks = players["game"] * 64 // 260
    seat = t["blocks/seat"].set_index(["block", "seat"])
    got = seat["win_share_x60"].groupby(["block", "seat"]).sum()
    want = (players["win_share"] * 60).round().astype(int).groupby([blocks, players["seat"]]).sum()
    assert (got.values == want.values).all()
    hp = seat["final_hp"].groupby(["block", "seat"]).sum()
    assert (hp.values == players["final_hp"].groupby([blocks, players["seat"]]).sum().values).all()
    # every completed card is in the completed-cards aggregate exactly once
    completed = t["blocks/completed"]
    masks = players["completed_mask"].astype(np.uint64).to_numpy()
    n_completed = sum(int(m).bit_count() for m in masks)
    assert completed["count"].sum() == n_completed


def test_identical_across_work_unit_sizes(reference, tmp_path):
    config, root = reference
    for size in (37, 260):
        run(config, tmp_path / f"c{size}", chunk_games=size)
        assert_same_run(root, tmp_path / f"c{size}")


def test_identical_with_two_worker_processes(reference, tmp_path):
    config, root = reference
    run(config, tmp_path / "w2", workers=2, chunk_games=50)
    assert_same_run(root, tmp_path / "w2")


def test_identical_on_a_dask_cluster(reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    config, root = reference
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        run(config, tmp_path / "dask", dask=cluster.scheduler_address, chunk_games=70)
    assert_same_run(root, tmp_path / "dask")
    meta = json.loads((tmp_path / "dask" / "run.json").read_text())
    assert meta["invocations"][-1]["backend"].startswith("dask tcp://")


def test_unreachable_scheduler_is_a_clear_error(reference, tmp_path):
    config, _ = reference
    with pytest.raises(RunError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        run(config, tmp_path / "x", dask="tcp://127.0.0.1:9")


def test_config_dask_section_names_the_scheduler(tmp_path):
    config = write_config(tmp_path, games=20, fields='\n[dask]\nscheduler = "tcp://127.0.0.1:9"\n')
    with pytest.raises(RunError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        run(config, tmp_path / "x")


@pytest.mark.parametrize("stop_seed", [1, 2])
def test_resume_after_interruption_at_a_random_chunk(reference, tmp_path, monkeypatch, stop_seed):
    config, root = reference
    n_chunks = -(-260 // 30)
    stop = random.Random(stop_seed).randrange(1, n_chunks)
    written = []
    original = RunDir.write_chunk

    def interrupted(self, segment, chunk, result):
        if len(written) == stop:
            # die half-way through writing a chunk: its records land, its marker does not
            from simcell.runner.store import write_atomic

            write_atomic(self.path("players", segment, chunk), result.players_parquet)
            raise KeyboardInterrupt
        written.append(chunk.index)
        original(self, segment, chunk, result)

    monkeypatch.setattr(RunDir, "write_chunk", interrupted)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        Runner(config, RunOptions(out=out, workers=1, chunk_games=30)).run()
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "interrupted" and meta["games_done"] == 30 * stop
    monkeypatch.setattr(RunDir, "write_chunk", original)
    outcome = Runner(config, RunOptions(resume=out, workers=1)).run()
    assert outcome.status == "complete" and outcome.games_played == 260 - 30 * stop
    assert_same_run(root, out)


def test_resume_after_ctrl_c_of_the_command(reference, tmp_path):
    """The real thing: SIGINT to a running `simcell run`, then --resume."""
    config, root = reference
    big = write_config(tmp_path, games=8000)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "simcell", "run", "--no-rungs", str(big), "--out", str(out), "--workers", "1",
           "--chunk-games", "100", "--quiet"]
    # a shell that starts jobs in the background makes them ignore SIGINT, and Python keeps an
    # ignored SIGINT ignored: restore the default so the command gets its KeyboardInterrupt
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    partial = out / "partial" / "players=3" / "field=0"
    while time.monotonic() < deadline and len(list(partial.glob("*.npz"))) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, f"exit {proc.returncode} (0: the run ignored the interrupt): {err}"
    assert "--resume" in err
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    done = subprocess.run([sys.executable, "-m", "simcell", "run", "--no-rungs", str(big), "--resume", str(out),
                           "--quiet"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    whole = tmp_path / "whole"
    run(big, whole, chunk_games=2000)
    assert_same_run(whole, out)


def test_a_ctrl_c_that_numba_turns_into_another_error_is_an_interrupt(tmp_path, monkeypatch):
    """numba raises a TypeError (not KeyboardInterrupt) when the Ctrl-C lands while it unboxes
    a user policy's function; the command still ends as interrupted (exit 130, --resume named),
    and an error without a Ctrl-C is still an error."""
    from typer.testing import CliRunner

    from simcell.cli import app

    def interrupted_inside_numba(self):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            raise TypeError("_get_wrapper_address() missing 1 required positional argument: 'sig'") from None

    config = write_config(tmp_path)
    # as in a terminal: a test run started in the background (`pytest &`) inherits an ignored SIGINT
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(Runner, "run", interrupted_inside_numba)
    try:
        result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out"), "--quiet"])
    finally:
        restored = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, inherited)
    assert restored is signal.default_int_handler
    assert result.exit_code == 130 and "--resume" in result.output, result.output

    def plain_error(self):
        raise TypeError("a real bug")

    monkeypatch.setattr(Runner, "run", plain_error)
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out2"), "--quiet"])
    assert result.exit_code == 1 and isinstance(result.exception, TypeError)


def test_resume_with_a_changed_config_is_refused(reference, tmp_path):
    config, _ = reference
    out = tmp_path / "out"
    run(config, out)
    changed = tmp_path / "changed"
    changed.mkdir()
    other = write_config(changed, extra="", fields='\n[overrides.cards."Insulin"]\natp = 2\n')
    with pytest.raises(RunError, match="different resolved config"):
        Runner(other, RunOptions(resume=out)).run()
    with pytest.raises(RunError, match="seed"):
        Runner(config, RunOptions(resume=out, seed=8)).run()


def test_refuses_to_overwrite(reference, tmp_path):
    config, _ = reference
    out = tmp_path / "out"
    run(config, out, games=20)
    with pytest.raises(RunDirError, match="already holds files"):
        run(config, out, games=20)
    run(config, out, games=30, force=True)
    assert json.loads((out / "run.json").read_text())["games"] == 30
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine")
    with pytest.raises(RunDirError, match="not a simcell run directory"):
        run(config, stranger, games=20, force=True)
    assert (stranger / "notes.txt").read_text() == "mine"


def test_unwritable_output_is_a_clear_error(reference, tmp_path):
    config, _ = reference
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(RunDirError, match="a-file"):
        run(config, blocker / "out", games=20)


def test_full_disk_is_a_clear_error_and_keeps_finished_chunks(reference, tmp_path, monkeypatch):
    config, root = reference
    import simcell.files as files

    calls = {"n": 0}
    real_open = open

    def full_after_some(path, mode="r", *args, **kwargs):
        if "w" in mode and "part-" in str(path):
            calls["n"] += 1
            if calls["n"] > 7:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(files, "open", full_after_some, raising=False)
    out = tmp_path / "out"
    with pytest.raises(RunDirError, match="disk full"):
        Runner(config, RunOptions(out=out, workers=1, chunk_games=30)).run()
    monkeypatch.undo()
    assert not list(out.rglob(".*.tmp-*"))
    Runner(config, RunOptions(resume=out, workers=1)).run()
    assert_same_run(root, out)


def test_multi_count_run_matches_single_count_runs(tmp_path):
    config = write_config(tmp_path, players=[2, 4], games=120)
    run(config, tmp_path / "both")
    both = tables(tmp_path / "both")
    for p in (2, 4):
        run(config, tmp_path / f"p{p}", players=(p,))
        single = tables(tmp_path / f"p{p}")
        for name, df in single.items():
            sub = both[name][both[name]["players"] == p].reset_index(drop=True)
            pd.testing.assert_frame_equal(sub, df.reset_index(drop=True), check_dtype=False,
                                          check_categorical=False, obj=f"{p}p {name}")


POOL_FIELDS = """
[[field]]
name = "pool"
pool = ["random", "greedy", "planner"]
"""


def test_duplicate_mode_and_several_fields(tmp_path):
    config = write_config(tmp_path, players=3, games=100, extra="duplicate = true",
                          fields=POOL_FIELDS)
    run(config, tmp_path / "dup")
    t = tables(tmp_path / "dup")
    games = t["games"]
    pool = games[games["field"] == 1]
    assert len(pool) == 102  # rounded up to whole deals of 3 rotations
    assert (pool["deal"] == pool["game"] // 3).all()
    assert (pool["rotation"] == pool["game"] % 3).all()
    events = [c for c in games.columns if c.startswith("event_")]
    # the rotations of a deal share its chance streams: same event order in each
    for _, deal in pool.groupby("deal"):
        assert (deal[events].nunique() == 1).all()
    # deal d of the pool field is deal d of the homogeneous field (one deal per game there)
    homo = games[games["field"] == 0].set_index("deal")
    first = pool.groupby("deal").first()
    assert (homo.loc[first.index, events].to_numpy() == first[events].to_numpy()).all()
    # blocks hold whole deals, and the field's balance table is even over them
    players = t["players"]
    p_pool = players[players["field"] == 1]
    seat = t["blocks/seat"]
    s_pool = seat[seat["field"] == 1]
    per_block = s_pool.groupby("block")["games"].sum()
    assert (per_block % 9 == 0).all()  # 3 rotations x 3 seats per deal
    balance = p_pool.groupby(["policy", "seat"]).size().unstack()
    assert (balance.to_numpy() == 34).all()


def test_cli_run_prints_a_summary(tmp_path):
    from typer.testing import CliRunner

    from simcell.cli import app

    config = write_config(tmp_path, games=80)
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "o"),
                                      "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "win share %" in result.output and "80 games played" in result.output
    assert (tmp_path / "o" / "report" / "report.html").is_file()
    again = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "o")])
    assert again.exit_code == 2 and "already holds files" in again.output
    bad = CliRunner().invoke(app, ["run", str(config), "--players", "7"])
    assert bad.exit_code == 2 and "outside 2-5" in bad.output
    assert not os.path.exists(tmp_path / "runs")


def test_report_preload_starts_after_the_first_chunk_and_not_with_dask(monkeypatch):
    """`simcell run` imports the report's modules beside the workers once the first chunk is
    in (the run's own imports are done by then); never with a Dask cluster; the bar still sees
    every update."""
    from simcell import api

    loads = []
    monkeypatch.setattr(api.ReportPreload, "_load", staticmethod(lambda: loads.append(1)))
    seen = []
    p = api.ReportPreload(lambda d, t: seen.append((d, t)), enabled=True)
    p(0, 30)  # before any chunk
    assert p.thread is None
    p(10, 30)  # the first chunk is in
    p(20, 30)
    p.join()
    assert loads == [1] and seen == [(0, 30), (10, 30), (20, 30)]
    off = api.ReportPreload(None, enabled=False)  # --quiet (no bar) on a Dask cluster
    off(0, 30)
    off(10, 30)
    off.join()
    assert off.thread is None and loads == [1]


def test_needs_compile_reads_the_cache_without_compiling(tmp_path):
    """False here once warmed (the suite plays games, so the kernel is in the cache); True in a
    new interpreter pointed at an empty cache folder, which answers at once, compiling nothing."""
    from simcell.policies.registry import LOOP_POLICIES, LOOP_RANDOM
    from simcell.runner.warm import needs_compile, warm

    warm({LOOP_RANDOM})
    assert needs_compile({LOOP_RANDOM}) is False
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "empty-cache"))
    out = subprocess.run(
        [sys.executable, "-c", "from simcell.runner.warm import needs_compile; "
         f"print(needs_compile({{{LOOP_POLICIES}}}))"], env=env, capture_output=True, text=True,
        timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
    assert not list((tmp_path / "empty-cache").rglob("*.nb*"))  # no index, no compiled code


def test_a_local_run_compiles_in_the_coordinator_before_its_workers_start(monkeypatch):
    """LocalProcesses warms the run's game loops in this process (prepare) before any chunk is
    submitted, so its workers load the compiled kernel: one compile, not one per worker."""
    from simcell.runner import backends

    calls = []
    monkeypatch.setattr(backends, "warm", lambda loops: calls.append(("warm", set(loops))))
    monkeypatch.setattr(backends, "run_chunk", lambda spec: calls.append(("chunk", spec)))
    with backends.LocalProcesses(2) as b:
        b.prepare({1})
        assert calls == [("warm", {1})]
        assert not getattr(b.pool, "_processes", None)  # no worker started yet


def test_a_dask_run_compiles_on_one_worker_per_host_then_loads_on_the_others():
    """DaskCluster.prepare warms the kernel on the first worker of each host, waits, then on
    the rest (which load what their host compiled)."""
    from simcell.runner.backends import DaskCluster

    class FakeClient:
        def __init__(self):
            self.waves = []

        def scheduler_info(self):
            return {"workers": {"tcp://a:1": {"host": "a"}, "tcp://a:2": {"host": "a"},
                                "tcp://b:1": {"host": "b"}, "tcp://a:3": {"host": "a"}}}

        def submit(self, fn, loops, workers, allow_other_workers, pure):
            assert not allow_other_workers and loops == [1]
            return workers[0]

        def gather(self, futures):
            self.waves.append(sorted(futures))

    cluster = DaskCluster("tcp://nowhere:8786")
    cluster.client = FakeClient()
    cluster.prepare({1})
    assert cluster.client.waves == [["tcp://a:1", "tcp://b:1"], ["tcp://a:2", "tcp://a:3"]]


@pytest.mark.parametrize(("compiling", "quiet", "spinner"),
                         [(True, False, True), (False, False, False), (None, False, True),
                          (True, True, False)])
def test_cli_run_shows_a_spinner_while_the_kernel_compiles(tmp_path, monkeypatch, compiling,
                                                          quiet, spinner):
    """A local run whose kernel is not cached yet compiles it before the bar, under a spinner
    with the elapsed and expected time, and says how long it took; not when it is cached, and
    not with --quiet. When the cache cannot be read, the spinner says compile or load."""
    from contextlib import contextmanager

    from typer.testing import CliRunner

    import simcell.runner.progress as progress
    import simcell.runner.warm as warm
    from simcell.cli import app

    shown = []

    @contextmanager
    def fake_spinner(expected, measured, how):
        shown.append((expected, how))
        yield

    real_warm = warm.warm
    monkeypatch.setattr(warm, "needs_compile", lambda loops: compiling)
    monkeypatch.setattr(progress, "compile_spinner", fake_spinner)
    monkeypatch.setattr(warm, "warm", lambda loops: dataclasses.replace(
        real_warm(loops), compiled=["policies"] if compiling else []))
    config = write_config(tmp_path, games=10)
    args = ["run", str(config), "--out", str(tmp_path / "o"), "--workers", "1"]
    result = CliRunner().invoke(app, args + (["--quiet"] if quiet else []))
    assert result.exit_code == 0, result.output
    assert bool(shown) == spinner
    if spinner:
        assert shown[0][0] > 0 and shown[0][1] == compiling
    assert ("compiled the game kernel in" in result.output) == (compiling is True and not quiet)


def test_compile_spinner_draws_its_message_on_a_terminal():
    import io

    from rich.console import Console

    from simcell.runner import progress

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    for measured, how in ((False, True), (True, None)):
        with progress.compile_spinner(31.0, measured, how, console=console):
            time.sleep(0.3)
    text = out.getvalue()
    assert "compiling the game kernel for this simcell code" in text and "about 31 s" in text
    assert "on a 2-core VM" in text and "on this machine" in text
    assert "loading (or compiling) the game kernel" in text


@pytest.mark.parametrize(("cached", "compiling"), [(False, True), (None, None), (True, False)])
def test_the_first_replay_says_it_is_compiling(tmp_path, monkeypatch, cached, compiling):
    """Issue 70: the first `simcell replay` compiled its traced game loop for most of a minute
    in silence. When that loop is not in numba's cache (or the cache cannot be read) the replay
    compiles it first under `simcell run`'s spinner on stderr (one line where stderr is no
    terminal) and says how long it took; a cached loop replays with nothing on stderr. The log
    is unchanged."""
    from typer.testing import CliRunner

    import simcell.runner.warm as warm
    from simcell.cli import app
    from simcell.config.load import load_run_config
    from simcell.policies.registry import game_loop
    from simcell.runner.fields import seating

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))  # the timings file only
    real = warm._cached
    monkeypatch.setattr(warm, "_cached", lambda dispatcher: cached)  # what the cache index says
    config = write_config(tmp_path, games=10)
    loop = game_loop(seating(load_run_config(config).fields[0], 3).player_policy)
    result = CliRunner().invoke(app, ["replay", str(config), "--game", "1"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Cytosis — game 1 ") and "compil" not in result.stdout
    if compiling is False:
        assert result.stderr == ""
    else:
        assert "the game kernel's replay loop" in result.stderr and "about" in result.stderr
        assert ("compiled the game kernel's replay loop in" in result.stderr) == bool(compiling)
    monkeypatch.setattr(warm, "_cached", real)
    assert warm.needs_compile_traced(loop) is False  # played: now cached
    assert warm.expected_traced_seconds(loop)[1] == bool(compiling)  # this machine's time next


def test_an_empty_kernel_cache_needs_the_replay_loop_compiled(tmp_path):
    """needs_compile_traced reads numba's cache index: on an empty cache, every traced loop is to
    be compiled (nothing is compiled to tell)."""
    code = ("from simcell.runner.warm import LOOP_NAMES, needs_compile_traced\n"
            "print([needs_compile_traced(loop) for loop in sorted(LOOP_NAMES)])\n")
    env = {**os.environ, "SIMCELL_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "[True, True, True]", out.stderr
    assert not any(tmp_path.rglob("*.nbi"))  # nothing was compiled to find out


def test_compile_spinner_says_its_words_once_where_it_cannot_draw():
    import io

    from rich.console import Console

    from simcell.runner import progress

    out = io.StringIO()
    with progress.compile_spinner(31.0, False, True, console=Console(file=out, width=200),
                                  what="the game kernel's replay loop", say_when_not_terminal=True):
        time.sleep(0.2)
    assert out.getvalue().count("compiling the game kernel's replay loop") == 1, out.getvalue()


def test_expected_compile_time_is_this_machines_last(tmp_path, monkeypatch):
    """The spinner's expectation: the development VM's figures until this machine has compiled,
    then this machine's own (kept in the cache folder)."""
    from simcell.policies.registry import LOOP_POLICIES
    from simcell.runner import warm

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    default, measured = warm.expected_seconds({LOOP_POLICIES})
    assert not measured and default == warm.DEFAULT_SECONDS[LOOP_POLICIES] + warm.SUMS_SECONDS
    warm._record_timings({"policies": 12.0, "sums": 1.0})
    assert warm.expected_seconds({LOOP_POLICIES}) == (13.0, True)


def test_cli_warm_compiles_or_loads_each_entry_and_names_the_cache(tmp_path):
    from typer.testing import CliRunner

    from simcell.cli import app

    config = write_config(tmp_path, games=10)
    result = CliRunner().invoke(app, ["warm", str(config)])
    assert result.exit_code == 0, result.output
    assert "sums" in result.output and "cache:" in result.output
    assert ("loaded in" in result.output) or ("compiled in" in result.output)
    bad = CliRunner().invoke(app, ["warm", str(tmp_path / "missing.toml")])
    assert bad.exit_code == 2 and "error:" in bad.output


def test_progress_rate_counts_from_the_first_finished_unit():
    """The bar's games/s leaves out worker start-up (and a first compile): blank until a
    second unit is in, then games since the first unit over the time since it."""
    from simcell.runner.progress import GameRate

    rate = GameRate()
    assert rate(300.0, 10_000) == ""  # the first unit came in after a 300 s compile
    assert rate(300.0, 10_000) == ""
    assert rate(301.0, 30_000) == "20,000 games/s"
    assert rate(302.0, 40_000) == "15,000 games/s"
