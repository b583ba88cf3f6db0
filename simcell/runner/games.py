"""Play games with the kernel from Python: one traced game, or a chunk of games into records.

Builds the kernel's tables from a GameDefinition (cached per player count), owns the State
buffers and converts the kernel's record columns to numpy structured arrays."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simcell.config.arrays import build_tables
from simcell.config.model import GameDefinition
from simcell.kernel.enums import game_record_dtype, player_record_dtype
from simcell.kernel.state import (
    G_TRACE_LEN,
    G_TRACE_OVERFLOW,
    GameRecords,
    GameTables,
    PlayerRecords,
    allocate_records,
    new_state,
)

TRACE_WORDS_PER_GAME = 400_000


@lru_cache(maxsize=32)
def tables_for(game: GameDefinition, players: int) -> GameTables:
    return build_tables(game, players)


AGGREGATES = ("offered", "bought", "discarded", "acquired", "completed", "occupancy")


@dataclass
class Chunk:
    """Records of a chunk of games, as numpy structured arrays, and its block aggregates."""

    players: np.ndarray  # player_record_dtype rows, game-major, seat-minor
    games: np.ndarray  # game_record_dtype rows
    decisions: int
    aggregates: dict[str, np.ndarray]  # AGGREGATES -> State.agg_* arrays (first axis: block)


def _structured(columns, spec: list[tuple], n: int) -> np.ndarray:
    out = np.zeros(n, np.dtype(spec))
    for item in spec:
        name = item[0]
        col = getattr(columns, name)
        if item[1] == "u8":
            col = col.view(np.uint64)
        out[name] = col
    return out


def to_structured(gt: GameTables, pr: PlayerRecords, gr: GameRecords, n_games: int) -> tuple[np.ndarray, np.ndarray]:
    pspec = player_record_dtype(gt.n_loc, gt.max_rounds)
    gspec = game_record_dtype(gt.n_events, gt.goals_revealed_max, gt.max_rounds)
    return _structured(pr, pspec, n_games * gt.players), _structured(gr, gspec, n_games)


def default_seats(players: int, policy: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Player id = seat, one policy id in every seat."""
    return np.arange(players, dtype=np.int64), np.full(players, policy, np.int64)


def play_chunk(
    game: GameDefinition, players: int, seed: int, first_game: int, n_games: int,
    seat_policy: np.ndarray | None = None, total_games: int | None = None, blocks: int = 1,
) -> Chunk:
    """Play games first_game .. first_game + n_games - 1 of a run of `total_games` games
    (default: first_game + n_games) and return their records and block aggregates (blocks of
    the whole run: game g belongs to block g * blocks // total_games)."""
    from simcell.kernel.game import play_chunk as kernel_play_chunk

    gt = tables_for(game, players)
    st = new_state(gt, 0, blocks)
    pr, gr = allocate_records(gt, n_games)
    seat_player, default_policy = default_seats(players)
    policy = default_policy if seat_policy is None else np.asarray(seat_policy, np.int64)
    total = first_game + n_games if total_games is None else total_games
    decisions = kernel_play_chunk(
        st, gt, pr, gr, seed, first_game, n_games, total, seat_player, policy
    )
    p, g = to_structured(gt, pr, gr, n_games)
    aggregates = {name: getattr(st, f"agg_{name}") for name in AGGREGATES}
    return Chunk(p, g, int(decisions), aggregates)


@dataclass
class TracedGame:
    trace: np.ndarray  # int64 words (enums TRACE format)
    players: np.ndarray  # player records of the game, seat order
    game: np.ndarray  # the game record (length 1)


def play_traced(
    game: GameDefinition, players: int, seed: int, game_index: int,
    seat_policy: np.ndarray | None = None, capacity: int = TRACE_WORDS_PER_GAME,
) -> TracedGame:
    """Play one game with its full trace (chance outcomes and every decision's legal set)."""
    from simcell.kernel.game import play_game, write_records

    gt = tables_for(game, players)
    st = new_state(gt, capacity)
    pr, gr = allocate_records(gt, 1)
    seat_player, default_policy = default_seats(players)
    policy = default_policy if seat_policy is None else np.asarray(seat_policy, np.int64)
    play_game(st, gt, seed, game_index, policy, True)
    if st.g[G_TRACE_OVERFLOW]:
        raise RuntimeError(f"trace buffer of {capacity} words too small; raise capacity")
    write_records(st, gt, pr, gr, 0, game_index, game_index, 0, seat_player, policy)
    p, g = to_structured(gt, pr, gr, 1)
    return TracedGame(st.trace[: st.g[G_TRACE_LEN]].copy(), p, g)
