"""What a run plays: its segments (one per player count and policy field), the games of each,
their blocks, and the work units (chunks) they are cut into.

Games are fixed by index: game g of a segment is the same game whatever the chunk it lands in,
so the plan's chunk size is an execution detail (records and block aggregates do not depend on
it). Blocks follow docs/method.md §1: game g belongs to block
floor(u * K / U) of its rotation group u = g // R (R seat orders of the field, U = N / R groups,
K = min(U, blocks)), so a block holds whole rotation groups, and in duplicate mode whole deals.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcell.config.load import PolicyField, RunConfig
from simcell.runner.fields import Seating, seating

MAX_CHUNK_GAMES = 10_000  # a work unit is at most this many games (progress and memory)
MIN_CHUNK_GAMES = 500  # and, unless the segment is smaller, at least this many
CHUNKS_PER_WORKER = 4  # aim for this many work units per worker and segment (load balance)
MAX_GAMES = 2**31 - 1  # game indices are int32 in the Parquet records


@dataclass(frozen=True)
class Segment:
    """The games of one player count under one policy field."""

    index: int  # position in the run (player counts ascending, then fields in config order)
    players: int
    field_index: int
    field: PolicyField
    games: int  # N: a whole number of rotation groups
    rotations: int  # R: seat orders of the field at this player count
    blocks: int  # K

    @property
    def name(self) -> str:
        """The segment's folder below each table: players=P/field=I (Hive partitioning)."""
        return f"players={self.players}/field={self.field_index}"

    def seating(self) -> Seating:
        return seating(self.field, self.players)

    def block_of(self, game: int) -> int:
        groups = self.games // self.rotations
        return (game // self.rotations) * self.blocks // groups


@dataclass(frozen=True)
class Chunk:
    """A work unit: games first .. first + n - 1 of a segment."""

    segment: int
    index: int  # position within the segment
    first: int
    n: int

    @property
    def name(self) -> str:
        return f"part-{self.index:05d}"


def segment_games(games: int, rotations: int) -> int:
    """Games of a segment: `games` rounded up to whole rotation groups (deals in duplicate
    mode), so every block holds complete rotations."""
    return -(-games // rotations) * rotations


def segments(rc: RunConfig, games: int | None = None, players: tuple[int, ...] | None = None,
             blocks: int | None = None) -> list[Segment]:
    """The run's segments: every player count x every field."""
    out: list[Segment] = []
    for p in players or rc.players:
        for fi, field in enumerate(rc.fields):
            rotations = seating(field, p).rotations
            n = segment_games(games or rc.games, rotations)
            if n > MAX_GAMES:
                raise ValueError(f"{n:,} games per segment is more than {MAX_GAMES:,}")
            groups = n // rotations
            out.append(Segment(len(out), p, fi, field, n, rotations,
                               min(groups, blocks or rc.report.blocks)))
    return out


def chunk_size(segment: Segment, workers: int) -> int:
    """Default work-unit size for a segment on `workers` workers."""
    want = -(-segment.games // (workers * CHUNKS_PER_WORKER))
    return max(1, min(segment.games, MAX_CHUNK_GAMES, max(MIN_CHUNK_GAMES, want)))


def chunks(segment: Segment, size: int) -> list[Chunk]:
    """Cut a segment into work units of `size` games (the last may be shorter)."""
    return [
        Chunk(segment.index, i, first, min(size, segment.games - first))
        for i, first in enumerate(range(0, segment.games, size))
    ]
