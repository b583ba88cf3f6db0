"""CLI start-up on a warm cache: wall time of short `simcell` commands in fresh processes
(the numba cache is loaded from disk, not compiled; run any command once first).

    python benchmarks/startup.py [--config configs/5p.toml] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/5p.toml")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="simcell-startup-"))
    try:
        commands = {
            "simcell --version": ["simcell", "--version"],
            f"simcell validate {args.config}": ["simcell", "validate", args.config],
            f"simcell run {args.config} --games 10 --workers 1": [
                "simcell", "run", args.config, "--games", "10", "--workers", "1", "--quiet",
                "--force", "--out", str(tmp / "run")],
        }
        timed(commands[f"simcell run {args.config} --games 10 --workers 1"])  # warm the cache
        print(f"CLI start-up, warm cache, best of {args.repeat}:")
        for label, cmd in commands.items():
            best = min(timed(cmd) for _ in range(args.repeat))
            print(f"  {best:6.2f} s  {label}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
