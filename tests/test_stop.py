"""Nothing left running (front-door issue): a command that starts worker processes ends them
when it ends, whether by SIGTERM (timeout, a job scheduler, a service manager), by SIGINT
(Ctrl-C) or by its own crash (here: killed outright), and what finished stays resumable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CONFIG = """
[run]
players = 2
games = 5_000_000
seed = 9

[[field]]
name = "planner"
policy = "planner"

[report]
rungs = []
"""


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (read from /proc)."""
    out = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except (OSError, ValueError):
            continue
        if int(fields.get("PPid", "0").strip()) == pid:
            out.append(int(status.parent.name))
    return out


def _alive(pids: list[int]) -> list[int]:
    out = []
    for p in pids:
        try:
            state = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        if "State:\tZ" not in state:
            out.append(p)
    return out


def _spawned(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _start(args: list[str], tmp_path: Path, workers_at_least: int = 2) -> tuple[subprocess.Popen, list[int]]:
    """Start a simcell command and wait until its worker processes are up and playing."""
    # a shell's background job ignores SIGINT, and Python keeps it ignored: restore the default
    # -X faulthandler: a command that hangs is ended with SIGABRT and prints every thread's stack
    proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "simcell", *args], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    end = time.time() + 180
    kids: list[int] = []
    while time.time() < end:
        # the workers: children spawned by multiprocessing (not its resource tracker), which a
        # run starts only once its kernel is loaded and it submits its first chunk
        kids = [k for k in _children(proc.pid) if _spawned(k)] if proc.poll() is None else []
        if len(kids) >= workers_at_least:
            time.sleep(3)  # playing, not only starting
            return proc, kids
        if proc.poll() is not None:
            pytest.fail(f"simcell {' '.join(args)} ended early: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.2)
    proc.kill()
    pytest.fail(f"no workers of simcell {' '.join(args)} after 180 s")


def _stop(proc: subprocess.Popen, how: str) -> None:
    if how == "kill":  # the coordinator's own crash: gone without a chance to end anything
        proc.kill()
    else:
        proc.send_signal(signal.SIGTERM if how == "SIGTERM" else signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)  # faulthandler writes where each thread waits
        proc.wait(timeout=30)
        stacks = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        pytest.fail(f"the command did not end within 60 s of {how}; its threads:\n{stacks[-6000:]}")


def _gone(kids: list[int]) -> bool:
    end = time.time() + 30  # a worker whose coordinator is gone notices within a second or two (more on a loaded machine)
    while time.time() < end:
        if not _alive(kids):
            return True
        time.sleep(0.2)
    return False


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "kill"])
def test_run_ends_its_workers(tmp_path, how):
    (tmp_path / "c.toml").write_text(CONFIG)
    proc, kids = _start(["run", "c.toml", "-o", "out", "--workers", "2", "-q"], tmp_path)
    _stop(proc, how)
    try:
        assert _gone(kids), f"workers {kids} still running after {how}"
    finally:
        for k in _alive(kids):
            os.kill(k, signal.SIGKILL)
    if how != "kill":  # ended in order: the run says so, and what finished is kept to resume
        assert proc.returncode == 130
        meta = json.loads((tmp_path / "out" / "run.json").read_text())
        assert meta["status"] != "complete"
        assert "--resume" in proc.stderr.read().decode()


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "kill"])
def test_a_designer_tool_ends_its_workers(tmp_path, how):
    (tmp_path / "a.toml").write_text(CONFIG)
    (tmp_path / "b.toml").write_text(CONFIG + '\n[overrides.cards."Insulin"]\natp = 3\n')
    proc, kids = _start(["compare", "a.toml", "b.toml", "-o", "cmp", "--workers", "2", "-q"], tmp_path)
    _stop(proc, how)
    try:
        assert _gone(kids), f"workers {kids} still running after {how}"
    finally:
        for k in _alive(kids):
            os.kill(k, signal.SIGKILL)


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "kill"])
def test_the_studio_ends_its_workers(tmp_path, how):
    (tmp_path / "c.toml").write_text(CONFIG.replace("5_000_000", "20_000"))
    proc, kids = _start(["studio", "c.toml", "--port", str(18700 + os.getpid() % 200), "--workers", "2",
                         "--games", "400000", "-o", "st"], tmp_path)
    _stop(proc, how)
    try:
        assert _gone(kids), f"studio workers {kids} still running after {how}"
    finally:
        for k in _alive(kids):
            os.kill(k, signal.SIGKILL)


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "kill"])
def test_a_run_on_a_dask_cluster_leaves_no_work_there(tmp_path, how):
    """On a Dask cluster the workers are the cluster's, not the command's: ended, the command
    leaves them idle (its chunks cancelled, none queued) and the cluster up."""
    distributed = pytest.importorskip("distributed")
    (tmp_path / "c.toml").write_text(CONFIG)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:

        def tasks() -> int:
            return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))

        proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "simcell", "run", "c.toml", "-o", "out", "-q",
                                 "--dask", cluster.scheduler_address, "--chunk-games", "2000"],
                                cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        end = time.time() + 180
        while time.time() < end and not any((tmp_path / "out").rglob("*.parquet")):
            if proc.poll() is not None:
                pytest.fail(f"simcell run --dask ended early: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.2)  # the workers load the kernel first, then play
        assert any((tmp_path / "out").rglob("*.parquet")), "no chunk came back from the cluster in 180 s"
        time.sleep(1)
        assert tasks() > 0  # chunks in flight on the cluster
        _stop(proc, how)
        end = time.time() + 30
        while time.time() < end and tasks():
            time.sleep(0.2)
        assert tasks() == 0, f"{tasks()} tasks of the run still on the cluster after {how}"
        assert len(client.scheduler_info()["workers"]) == 2  # the cluster's workers untouched
    if how != "kill":
        assert proc.returncode == 130
        meta = json.loads((tmp_path / "out" / "run.json").read_text())
        assert meta["status"] != "complete" and meta["games_done"] > 0
        assert "--resume" in proc.stderr.read().decode()
