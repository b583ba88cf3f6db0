"""The run directory: what is on disk, written so that an interruption at any moment leaves it
consistent.

    OUT/run.json                 identity, plan, status, timing, machine (rewritten atomically)
    OUT/resolved.json            the fully resolved config: every value used (its hash = the run)
    OUT/config.toml              the config file as given
    OUT/players/players=P/field=I/part-NNNNN.parquet   per-(game, player) records of a chunk
    OUT/games/players=P/field=I/part-NNNNN.parquet     per-game records of a chunk
    OUT/partial/players=P/field=I/part-NNNNN.npz       the chunk's partial block aggregates
    OUT/blocks/NAME.parquet      block aggregates of the whole run (written when it completes)

Every file is written to a temporary name and renamed into place. A chunk counts as finished
when its partial-aggregate file exists; it is written after the chunk's two record files, so a
finished chunk always has its records. On resume, files of unfinished chunks are replaced.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simcell import files
from simcell.config.model import GameDefinition
from simcell.runner.plan import Chunk, Segment
from simcell.runner.records import axis_labels
from simcell.vocabulary import KERNEL_AGGREGATES, RUNNER_AGGREGATES, SEAT_MEASURES
from simcell.runner.work import PARQUET_COMPRESSION, ChunkResult
from simcell.vocabulary import RESOLVED_FILE, RUN_FILE

TABLES = ("players", "games")
MARKER = ".simcell-run"  # names a directory as a simcell run directory


class RunDirError(files.WriteError):
    """A run directory that cannot be used as asked (exists, unwritable, full, mismatched)."""


def write_atomic(path: Path, data: bytes) -> None:
    """files.write_atomic, failing with a RunDirError."""
    files.write_atomic(path, data, RunDirError)


def write_json(path: Path, obj) -> None:
    write_atomic(path, (json.dumps(obj, indent=2, sort_keys=False) + "\n").encode())


class RunDir:
    """A run directory on disk."""

    def __init__(self, root: Path):
        self.root = Path(root)

    # -- creating and reopening --------------------------------------------------------------
    @classmethod
    def create(cls, root: Path, force: bool) -> RunDir:
        """A new, empty run directory at `root`: refused if `root` holds anything, unless
        `force` (then its contents are removed, but only if it is a simcell run directory or
        empty: --force never deletes an arbitrary folder)."""
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise RunDirError(f"{root} exists and is not a directory")
        if root.is_dir() and any(root.iterdir()):
            if not force:
                raise RunDirError(
                    f"{root} already holds files; choose another --out, continue it with "
                    f"--resume {root}, or replace it with --force"
                )
            if not (root / MARKER).exists():
                raise RunDirError(f"{root} is not a simcell run directory; --force only replaces "
                                  "run directories")
            for child in root.iterdir():
                if child.is_dir():
                    shutil.rmtree(child)
                else:
                    child.unlink()
        try:
            root.mkdir(parents=True, exist_ok=True)
            probe = root / MARKER
            probe.write_text("simcell run directory\n")
        except OSError as exc:
            raise files.write_error(root, exc, RunDirError) from exc
        return cls(root)

    @classmethod
    def open(cls, root: Path) -> RunDir:
        root = Path(root)
        if not (root / RUN_FILE).is_file() or not (root / RESOLVED_FILE).is_file():
            raise RunDirError(f"{root} is not a simcell run directory (no {RUN_FILE}); nothing to resume")
        run = cls(root)
        run.remove_temporary()
        return run

    def remove_temporary(self) -> None:
        for tmp in self.root.rglob(".*.tmp-*"):
            tmp.unlink(missing_ok=True)

    # -- metadata ----------------------------------------------------------------------------
    def read_json(self, name: str) -> dict:
        return json.loads((self.root / name).read_text())

    def write_json(self, name: str, obj) -> None:
        write_json(self.root / name, obj)

    def write_text(self, name: str, text: str) -> None:
        write_atomic(self.root / name, text.encode())

    # -- chunks ------------------------------------------------------------------------------
    def path(self, table: str, segment: Segment, chunk: Chunk, suffix: str = "parquet") -> Path:
        return self.root / table / segment.name / f"{chunk.name}.{suffix}"

    def finished(self, segment: Segment, chunk: Chunk) -> bool:
        return self.path("partial", segment, chunk, "npz").is_file()

    def write_chunk(self, segment: Segment, chunk: Chunk, result: ChunkResult) -> None:
        """The chunk's records, then its partial aggregates (the chunk is finished once the
        latter exists)."""
        write_atomic(self.path("players", segment, chunk), result.players_parquet)
        write_atomic(self.path("games", segment, chunk), result.games_parquet)
        buf = _npz_bytes(result)
        write_atomic(self.path("partial", segment, chunk, "npz"), buf)

    def read_partial(self, segment: Segment, chunk: Chunk) -> tuple[int, dict[str, np.ndarray], int]:
        with np.load(self.path("partial", segment, chunk, "npz")) as z:
            arrays = {k: z[k] for k in z.files if k not in ("first_block", "decisions")}
            return int(z["first_block"]), arrays, int(z["decisions"])

    # -- the run's block aggregates ------------------------------------------------------------
    def merge_blocks(self, game: GameDefinition, segments: list[Segment],
                     chunks: dict[int, list[Chunk]]) -> int:
        """Sum every finished chunk's partial aggregates by block and write blocks/*.parquet
        (long tables: players, field, block, the aggregate's axes, value; the seat aggregate
        wide, one column per measure). Returns the run's policy decisions."""
        frames: dict[str, list[pd.DataFrame]] = {}
        decisions = 0
        for seg in segments:
            total: dict[str, np.ndarray] = {}
            for ch in chunks[seg.index]:
                b0, arrays, d = self.read_partial(seg, ch)
                decisions += d
                for name, arr in arrays.items():
                    if name not in total:
                        total[name] = np.zeros((seg.blocks,) + arr.shape[1:], np.int64)
                    total[name][b0 : b0 + arr.shape[0]] += arr
            for name, arr in total.items():
                frames.setdefault(name, []).append(_long(game, seg, name, arr))
        for name, parts in frames.items():
            table = pa.Table.from_pandas(pd.concat(parts, ignore_index=True), preserve_index=False)
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink, compression=PARQUET_COMPRESSION)
            write_atomic(self.root / "blocks" / f"{name}.parquet", sink.getvalue().to_pybytes())
        return decisions


def _npz_bytes(result: ChunkResult) -> bytes:
    import io

    sink = io.BytesIO()
    np.savez(sink, first_block=np.int64(result.first_block), decisions=np.int64(result.decisions),
             **result.aggregates)
    return sink.getvalue()


def _long(game: GameDefinition, seg: Segment, name: str, arr: np.ndarray) -> pd.DataFrame:
    """One segment's aggregate as a table: a row per non-zero cell (seat: per block, policy
    and seat, measures as columns)."""
    if name == "seat":
        b, lab, s = np.nonzero(arr[..., 0])  # cells with games
        df = pd.DataFrame({"block": b, "policy": lab, "seat": s})
        for k, m in enumerate(SEAT_MEASURES):
            df[m] = arr[b, lab, s, k]
    else:
        axes = KERNEL_AGGREGATES.get(name) or RUNNER_AGGREGATES[name]
        idx = np.nonzero(arr)
        df = pd.DataFrame({"block": idx[0]})
        labels = axis_labels(game, name)
        for k, axis in enumerate(axes):
            values = idx[k + 1] + (1 if (name == "occupancy" and axis == "round") else 0)
            if axis in labels:
                df[axis] = pd.Categorical.from_codes(values, categories=labels[axis])
            else:
                df[axis] = values
        df["count" if name in KERNEL_AGGREGATES else "amount"] = arr[idx]
    df.insert(0, "field", seg.field_index)
    df.insert(0, "players", seg.players)
    measures = set(SEAT_MEASURES) | {"count", "amount"}
    for col in df.columns:  # axes are small integers, sums are int64
        if col not in measures and df[col].dtype != "category":
            df[col] = df[col].astype(np.int16)
    return df
