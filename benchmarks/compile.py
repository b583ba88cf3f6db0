"""The kernel's compile, as a new user meets it: the cold compile of what `simcell run CONFIG`
needs (its fields' game loops and the runner's record sums) from an empty cache folder, the warm
load of the same from the cache, and the peak memory of a cold first run (the process tree
sampled together, by phase: the coordinator compiling alone, then the workers playing, which
must only load the kernel, then the report).

    python benchmarks/compile.py [--config configs/5p.toml] [--games 20000] [--workers N] [--all]

Each figure comes from fresh processes pointed at a new, empty cache folder (NUMBA_CACHE_DIR),
so nothing compiled before counts. `--all` also times the cold compile of every game loop (what
`simcell warm` compiles). Compile times are wall clock of one process (numba compiles on one
core); a phase's peak RSS is the largest sum over the process tree at one sampling instant.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, resource, sys, time
t = time.perf_counter()
from simcell.runner.run import RunOptions, Runner
from simcell.runner.warm import LOOP_NAMES, warm
loops = set(LOOP_NAMES) if sys.argv[1] == "all" else Runner(sys.argv[1], RunOptions()).loops
imported = time.perf_counter() - t
w = warm(loops)
print(json.dumps({"imported": imported, "seconds": w.seconds, "compiled": w.compiled,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _child(what: str, cache: Path) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("SIMCELL_CACHE_DIR", None)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, what], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr[-3000:])
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["wall"] = time.perf_counter() - t
    return result


def _show(label: str, r: dict) -> None:
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in r["seconds"].items())
    how = "compiled " + "+".join(r["compiled"]) if r["compiled"] else "loaded"
    print(f"  {label}: {sum(r['seconds'].values()):6.1f} s ({how}: {parts}); process wall "
          f"{r['wall']:.1f} s with imports {r['imported']:.1f} s; peak RSS {r['rss_mb']:,.0f} MiB")


def _role(p, coordinator: int) -> str:
    if p.pid == coordinator:
        return "coordinator"
    cmd = " ".join(p.cmdline())
    if "resource_tracker" in cmd:
        return "resource tracker"
    if "spawn_main" in cmd:
        return f"worker {p.pid}"
    return f"report side process {p.pid}"  # forked from the coordinator


def _cold_run(config: str, games: int, workers: int | None, cache: Path, out: Path) -> None:
    import psutil

    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env.pop("SIMCELL_CACHE_DIR", None)
    cmd = [sys.executable, "-m", "simcell", "run", config, "--games", str(games), "--quiet",
           "--out", str(out)] + (["--workers", str(workers)] if workers else [])
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    root = psutil.Process(proc.pid)
    phases = {"compile": 0, "play": 0, "report": 0}  # peak sum of the tree's RSS in each
    phase, roles = "compile", {}
    while proc.poll() is None:
        total, workers = 0, 0
        try:
            family = [root] + root.children(recursive=True)
        except psutil.NoSuchProcess:
            break
        for p in family:
            try:
                rss = p.memory_info().rss
                role = roles.setdefault(p.pid, _role(p, proc.pid))
            except psutil.NoSuchProcess:
                continue
            total += rss
            workers += role.startswith("worker")
        if workers:
            phase = "play"
        elif phase == "play":
            phase = "report"
        phases[phase] = max(phases[phase], total)
        time.sleep(0.05)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        sys.exit(f"simcell run failed (exit {proc.returncode})")
    mib = 1024 * 1024
    n_workers = sum(r.startswith("worker") for r in roles.values())
    print(f"  cold `simcell run {config} --games {games:,}` ({n_workers} workers): {wall:.1f} s "
          "wall; peak RSS of the process tree: "
          + ", ".join(f"{k} {v / mib:,.0f} MiB" for k, v in phases.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/5p.toml")
    parser.add_argument("--games", type=int, default=20_000,
                        help="games of the cold run whose memory is sampled")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--all", action="store_true", help="also every game loop, cold")
    args = parser.parse_args()
    import numba

    print(f"kernel compile of `simcell run {args.config}` (numba {numba.__version__}, "
          f"{os.cpu_count()} cores):")
    tmp = Path(tempfile.mkdtemp(prefix="simcell-compile-"))
    try:
        cache = tmp / "cache"
        _show("cold compile", _child(args.config, cache))
        _show("warm load   ", _child(args.config, cache))
        if args.all:
            _show("every loop, cold", _child("all", tmp / "cache-all"))
        _cold_run(args.config, args.games, args.workers, tmp / "cache-run", tmp / "run")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
