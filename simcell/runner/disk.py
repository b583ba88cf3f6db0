"""What runs take on disk, and pruning them (`simcell prune`): a run directory's size; keeping
only a finished run's summaries (its per-game records dropped, its block aggregates, run.json,
resolved config and report kept); removing old runs whole; a dry run that lists what would go.

Only simcell run directories are touched (the marker file and run.json), never a run that may be
playing (run.json says "running"), and with --keep-summaries only the three record folders. A
run found inside another (a run's rungs, RUN/rungs/NAME) belongs to it: it goes with it, and its
own records go with the outer run's. Records pruned are played again, bit for bit, by resuming
the run (`simcell run CONFIG --resume RUN`, or the same designer command again).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from simcell.runner.store import MARKER, RUN_FILE, RunDir, RunDirError

RECORD_FOLDERS = ("partial", "players", "games")  # what --keep-summaries drops, in this order
PRUNED = "pruned"  # run.json's note of a pruning: {"at", "kept", "bytes_freed"}
SIZE = "disk_bytes"  # run.json: the run directory's size when its games ended
_AGE = re.compile(r"(\d+(?:\.\d+)?)\s*([hdw])")
_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}


class PruneError(Exception):
    """Bad input to `simcell prune`, said in one line."""


def folder_bytes(path: Path) -> int:
    """Bytes of the files under `path` (links counted as links, never followed)."""
    total = 0
    for folder, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):  # removed while walking: it takes no room
                total += os.lstat(os.path.join(folder, name)).st_size
    return total


def human(n: int) -> str:
    """A size for people: '212.3 MB' (powers of 1000, as disks are sold)."""
    size = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} TB"


def parse_age(text: str) -> timedelta:
    """'12h', '30d', '2w' as a timedelta; a PruneError otherwise."""
    m = _AGE.fullmatch(text.strip().lower())
    if m is None:
        raise PruneError(f"--older-than {text!r}: give an age such as 12h, 30d or 2w")
    return float(m.group(1)) * _UNITS[m.group(2)]


def is_run(path: Path) -> bool:
    return (path / MARKER).is_file() and (path / RUN_FILE).is_file()


@dataclass
class Run:
    """A run directory found on disk, with the runs found inside it (its rungs)."""

    root: Path
    meta: dict
    inner: list[Run] = field(default_factory=list)

    @property
    def status(self) -> str:
        return str(self.meta.get("status", "unknown"))

    @property
    def ended(self) -> datetime:
        """When the run last ended (completed, else created, else run.json's time)."""
        for key in ("completed", "created"):
            try:
                return datetime.fromisoformat(self.meta[key])
            except (KeyError, TypeError, ValueError):
                continue
        return datetime.fromtimestamp((self.root / RUN_FILE).stat().st_mtime, UTC)

    def every(self) -> list[Run]:
        """This run and every run inside it."""
        return [self] + [r for inner in self.inner for r in inner.every()]

    def records(self) -> list[Path]:
        return [self.root / f for f in RECORD_FOLDERS if (self.root / f).is_dir()]


def _read(root: Path) -> Run:
    try:
        return Run(root, RunDir(root).read_json(RUN_FILE))
    except (OSError, ValueError) as exc:
        raise PruneError(f"{root}: cannot read {RUN_FILE}: {exc}") from None


def find_runs(paths: Iterable[Path]) -> list[Run]:
    """The run directories at or under each path, outermost first (a run inside another is in
    its `inner`), each once; a PruneError for a path that does not exist or holds no run."""
    found: dict[Path, Run] = {}
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise PruneError(f"{path}: no such file or directory")
        if not path.is_dir():
            raise PruneError(f"{path}: not a directory (give run directories or folders of them)")
        runs = _walk(path)
        if not runs:
            raise PruneError(f"{path}: holds no simcell run directory (no {MARKER} and {RUN_FILE})")
        for run in runs:
            found.setdefault(run.root.resolve(), run)
    inside = {r.root.resolve() for run in found.values() for r in run.every()[1:]}
    return sorted((r for key, r in found.items() if key not in inside), key=lambda r: str(r.root))


def _walk(path: Path) -> list[Run]:
    """The outermost runs at or under `path`, each with the runs inside it (links not followed)."""
    if is_run(path) and not path.is_symlink():
        run = _read(path)
        run.inner = [r for child in sorted(path.iterdir())
                     if child.is_dir() and not child.is_symlink() for r in _walk(child)]
        return [run]
    if path.is_symlink():
        return []
    return [r for child in sorted(path.iterdir())
            if child.is_dir() and not child.is_symlink() for r in _walk(child)]


@dataclass
class Step:
    """One thing prune does: remove a run whole, or drop a finished run's records."""

    run: Run
    whole: bool
    bytes: int  # what it frees
    paths: list[Path]  # what it removes

    def line(self, dry_run: bool) -> str:
        verb = ("would remove" if dry_run else "removed") if self.whole else \
            ("would drop the records of" if dry_run else "dropped the records of")
        when = self.run.ended.astimezone().strftime("%Y-%m-%d %H:%M")
        if self.whole:
            inner = len(self.run.every()) - 1
            what = f"the whole run{f' and the {inner} run(s) inside it' if inner else ''}"
        else:
            kept = sorted(f"{p.name}/" if p.is_dir() else p.name for p in self.run.root.iterdir()
                          if p.name not in RECORD_FOLDERS and p.name != MARKER)
            what = ", ".join(sorted(f"{p.name}/" for p in self.paths)) + \
                f" (kept: {', '.join(kept)})"
        return f"{verb} {self.run.root}: {what}, {human(self.bytes)}, ended {when}"


@dataclass
class Plan:
    steps: list[Step]
    skipped: list[tuple[Path, str]]  # (run, why it is left alone)
    runs: int  # runs found (with those inside others)
    bytes: int  # their size on disk


def plan(paths: Iterable[Path], *, keep_summaries: bool, older_than: timedelta | None = None,
         keep_newest: int | None = None, now: datetime | None = None) -> Plan:
    """What `simcell prune` would do with the runs under `paths`: those selected (older than
    `older_than` and not among the `keep_newest` newest; every run found when neither is given)
    removed whole, or with `keep_summaries` their records dropped."""
    if not keep_summaries and older_than is None and keep_newest is None:
        raise PruneError("say what to prune: --keep-summaries (drop the per-game records, keep "
                         "the summaries), --older-than AGE or --keep-newest N (remove runs whole)")
    runs = find_runs(paths)
    now = now or datetime.now(UTC)
    newest = sorted(runs, key=lambda r: r.ended, reverse=True)
    kept_new = set(id(r) for r in newest[:keep_newest]) if keep_newest is not None else set()
    steps, skipped = [], []
    for run in runs:
        if id(run) in kept_new or (older_than is not None and now - run.ended < older_than):
            continue
        playing = [r.root for r in run.every() if r.status == "running"]
        if playing:
            skipped.append((run.root, f"{playing[0]}'s run.json says it is running (playing now, "
                                      "or killed): left alone; delete it by hand if it is not"))
            continue
        if not keep_summaries:
            steps.append(Step(run, True, folder_bytes(run.root), [run.root]))
            continue
        for r in run.every():
            if r.status != "complete":
                skipped.append((r.root, f"{r.status}, not complete: its records are all it has "
                                        "(resume it, or remove it whole with --older-than)"))
            elif r.records():
                steps.append(Step(r, False, sum(folder_bytes(p) for p in r.records()), r.records()))
    every = [r for run in runs for r in run.every()]
    return Plan(steps, skipped, len(every), sum(folder_bytes(r.root) for r in runs))


def apply(steps: list[Step]) -> int:
    """Do the steps; returns the bytes freed. A run's records are marked pruned in its run.json
    before they go, so a run interrupted half way is never taken for a whole one."""
    freed = 0
    for step in steps:
        if step.whole:
            shutil.rmtree(step.run.root)
        else:
            run = RunDir(step.run.root)
            meta = run.read_json(RUN_FILE)
            meta[PRUNED] = {"at": datetime.now(UTC).isoformat(timespec="seconds"),
                            "kept": "summaries", "bytes_freed": step.bytes}
            run.write_json(RUN_FILE, meta)
            for folder in step.paths:  # partial first: a chunk without it is unfinished
                shutil.rmtree(folder)
            meta[SIZE] = folder_bytes(step.run.root)
            run.write_json(RUN_FILE, meta)
        freed += step.bytes
    return freed


def pruned_note(root: Path) -> str | None:
    """Why a run's report cannot be rebuilt, when its records were pruned, else None."""
    try:
        meta = RunDir(root).read_json(RUN_FILE)
    except (OSError, ValueError):
        return None
    if PRUNED not in meta:
        return None
    config = meta.get("config", "CONFIG")
    return (f"{root}: its per-game records were pruned ({meta[PRUNED].get('at', '')[:10]}, simcell "
            f"prune --keep-summaries); its report is in {root / 'report'}; to rebuild it, play "
            f"the records again: simcell run {config} --resume {root}")


def runs_line(folder: Path) -> str:
    """'36 runs, 212.3 MB on disk under FOLDER', for a command that played runs there."""
    try:
        runs = [r for run in find_runs([folder]) for r in run.every()]
    except PruneError:
        return f"no runs on disk under {folder}"
    return f"{len(runs)} run(s), {human(folder_bytes(folder))} on disk under {folder}"


__all__ = ["PruneError", "RunDirError", "apply", "find_runs", "folder_bytes", "human", "parse_age",
           "plan", "pruned_note", "runs_line"]
