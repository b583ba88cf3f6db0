"""One work unit, as a worker (a local process or a Dask worker) plays it: a picklable spec in,
the chunk's Parquet bytes and partial block aggregates out. Nothing here touches the run
directory: the coordinating process writes what workers return, so a remote worker needs no
access to the run's disk (a user policy travels as its source text)."""

from __future__ import annotations

import hashlib
import io
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcell import __version__
from simcell.config.load import PolicyField
from simcell.config.model import GameDefinition

PARQUET_COMPRESSION = "zstd"


@dataclass(frozen=True)
class ChunkSpec:
    """Everything a worker needs to play games first .. first + n - 1 of a segment."""

    segment: int
    index: int
    game: GameDefinition
    players: int
    seed: int
    field: PolicyField
    first: int
    n: int
    total: int  # the segment's games
    blocks: int
    duplicate: bool
    user_source: tuple[str, str] | None = None  # (file name, source text) of the user policy


@dataclass
class ChunkResult:
    segment: int
    index: int
    first: int
    n: int
    players_parquet: bytes
    games_parquet: bytes
    first_block: int
    aggregates: dict[str, np.ndarray]  # name -> array, first axis = blocks first_block ..
    decisions: int
    seconds: float  # playing the games (kernel), excluding encoding
    code_hash: str
    version: str


def parquet_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, compression=PARQUET_COMPRESSION)
    return sink.getvalue()


_USER_FNS: dict[tuple[str, str], object] = {}


def _user_fn(spec: ChunkSpec, user_policy: str | None):
    """The compiled user policy of the spec's field (from its shipped source), or the no-op."""
    from simcell.policies.user import compile_user_policy, no_user_policy

    if user_policy is None:
        return no_user_policy()
    if spec.user_source is None:
        raise ValueError(f"user policy {user_policy!r}: its source was not shipped with the chunk")
    name, text = spec.user_source
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    func = user_policy.partition(":")[2]
    key = (digest, func)
    if key not in _USER_FNS:
        folder = Path(tempfile.gettempdir()) / f"simcell-user-{digest}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if not path.exists():
            tmp = folder / f".{name}.{id(spec)}"
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
        _USER_FNS[key] = compile_user_policy(f"{name}:{func}", folder)
    return _USER_FNS[key]


def run_chunk(spec: ChunkSpec) -> ChunkResult:
    """Play one work unit and encode its records and partial block aggregates."""
    from simcell.kernel.jit import CODE_HASH
    from simcell.runner.fields import seating
    from simcell.runner.games import AGGREGATES, play_chunk_columns
    from simcell.runner.records import game_table, player_table, runner_aggregates

    s = seating(spec.field, spec.players)
    t = time.perf_counter()
    buf, decisions = play_chunk_columns(
        spec.game, spec.players, spec.seed, spec.first, spec.n, s, spec.total, spec.blocks,
        spec.duplicate, _user_fn(spec, s.user_policy),
    )
    seconds = time.perf_counter() - t
    r = s.rotations
    groups = spec.total // r
    game_blocks = (np.arange(spec.first, spec.first + spec.n) // r) * spec.blocks // groups
    b0, b1 = int(game_blocks[0]), int(game_blocks[-1])
    aggregates = {name: getattr(buf.st.tallies, name)[b0 : b1 + 1].copy() for name in AGGREGATES}
    aggregates.update(runner_aggregates(buf.pr, spec.players, spec.n, len(s.policies),
                                        game_blocks, b0, b1 - b0 + 1))
    return ChunkResult(
        segment=spec.segment, index=spec.index, first=spec.first, n=spec.n,
        players_parquet=parquet_bytes(player_table(buf.pr, spec.game, spec.players, spec.n)),
        games_parquet=parquet_bytes(game_table(buf.gr, spec.game, spec.players, spec.n)),
        first_block=b0, aggregates=aggregates, decisions=decisions, seconds=seconds,
        code_hash=CODE_HASH, version=__version__,
    )
