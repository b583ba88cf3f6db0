"""Play games with the kernel from Python: one traced game, or a chunk of games into records.

Builds the kernel's tables from a GameDefinition (cached per player count), owns the State
buffers, calls the entry point of the field's game loop (registry.game_loop) and converts the
kernel's record columns to numpy structured arrays."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from simcell.config.arrays import build_tables
from simcell.config.model import GameDefinition
from simcell.vocabulary import game_record_dtype, player_record_dtype
from simcell.kernel.observation import observation_size
from simcell.policies.registry import N_PARAMS, game_loop
from simcell.policies.user import UserPolicyError, compile_user_policy, no_user_policy
from simcell.runner.fields import Seating, homogeneous
from simcell.kernel.state import (
    G_POLICY_ERROR,
    G_TRACE_LEN,
    G_TRACE_OVERFLOW,
    GameRecords,
    GameTables,
    PlayerRecords,
    Tallies,
    allocate_records,
    new_state,
)

TRACE_WORDS_PER_GAME = 400_000


@lru_cache(maxsize=32)
def tables_for(game: GameDefinition, players: int) -> GameTables:
    return build_tables(game, players)


AGGREGATES = Tallies._fields  # the kernel's block aggregates (vocabulary.KERNEL_AGGREGATES)


@dataclass
class Chunk:
    """Records of a chunk of games, as numpy structured arrays, and its block aggregates."""

    players: np.ndarray  # player_record_dtype rows, game-major, seat-minor
    games: np.ndarray  # game_record_dtype rows
    decisions: int
    aggregates: dict[str, np.ndarray]  # AGGREGATES -> State.tallies arrays (first axis: block)


def _structured(columns, spec: list[tuple], n: int) -> np.ndarray:
    out = np.zeros(n, np.dtype(spec))
    for item in spec:
        name = item[0]
        col = getattr(columns, name)[:n]
        if item[1] == "u8":
            col = col.view(np.uint64)
        out[name] = col
    return out


def to_structured(gt: GameTables, pr: PlayerRecords, gr: GameRecords, n_games: int) -> tuple[np.ndarray, np.ndarray]:
    pspec = player_record_dtype(gt.n_loc, gt.max_rounds, gt.n_goals)
    gspec = game_record_dtype(gt.n_events, gt.goals_revealed_max, gt.max_rounds)
    return _structured(pr, pspec, n_games * gt.players), _structured(gr, gspec, n_games)


def game_state(gt: GameTables, trace_capacity: int = 0, blocks: int = 1):
    """A State for the tables `gt` with room for the registry's policy parameters and a user
    policy's observation (a trace of `trace_capacity` words, aggregates of `blocks` blocks)."""
    return new_state(gt, trace_capacity, blocks, N_PARAMS, observation_size(gt))


def scratch_states(gt: GameTables):
    """The two scratch States of the rollout policy's playouts."""
    return game_state(gt), game_state(gt)


def user_fn(seating: Seating, base: Path = Path(".")):
    """The compiled user policy of a field (its path relative to `base`), or the no-op."""
    if seating.user_policy is None:
        return no_user_policy()
    return compile_user_policy(seating.user_policy, base)


def _policy_failed(seating: Seating, game_index: int) -> UserPolicyError:
    return UserPolicyError(
        f"user policy {seating.user_policy!r} returned an action index outside 0 .. n_legal - 1 "
        f"in game {game_index}"
    )


@dataclass
class ChunkBuffers:
    """The State, scratch States and record columns a chunk is played into; reused from chunk
    to chunk of the same shape (allocating them afresh costs page faults on every chunk)."""

    st: object
    root: object
    work: object
    pr: PlayerRecords
    gr: GameRecords
    capacity: int  # games the record columns hold


_BUFFERS: dict[tuple, ChunkBuffers] = {}


def chunk_buffers(gt: GameTables, key: tuple, blocks: int, n_games: int) -> ChunkBuffers:
    """Buffers for `n_games` games of the tables `gt` (cached per key and block count, grown
    as needed); the block aggregates are zeroed."""
    buf = _BUFFERS.get((key, blocks))
    if buf is None or buf.capacity < n_games:
        _BUFFERS.clear()  # one shape at a time: a worker plays one segment's chunks in a row
        pr, gr = allocate_records(gt, n_games)
        buf = ChunkBuffers(game_state(gt, 0, blocks), *scratch_states(gt), pr, gr, n_games)
        _BUFFERS[(key, blocks)] = buf
    else:
        for name in AGGREGATES:
            getattr(buf.st.tallies, name)[...] = 0
    return buf


def play_chunk_columns(
    game: GameDefinition, players: int, seed: int, first_game: int, n_games: int,
    seating: Seating, total_games: int, blocks: int, duplicate: bool, user_fn,
) -> tuple[ChunkBuffers, int]:
    """Play games first_game .. first_game + n_games - 1 of a run of `total_games` games into
    reused buffers (record rows 0 .. n_games - 1; block aggregates in buffers.st.tallies);
    returns the buffers and the policy decisions taken. Blocks as play_chunk says."""
    from simcell.play.game import PLAY_CHUNK

    gt = tables_for(game, players)
    buf = chunk_buffers(gt, (game, players), blocks, n_games)
    rotations = seating.rotations
    total = -(-total_games // rotations) * rotations  # whole rotation groups (kernel play_chunk)
    decisions = PLAY_CHUNK[game_loop(seating.player_policy)](
        buf.st, gt, buf.pr, buf.gr, seed, first_game, n_games, total, seating.player_policy,
        seating.player_label, seating.player_params, seating.seat_orders, duplicate, user_fn,
        buf.root, buf.work,
    )
    if decisions < 0:
        raise _policy_failed(seating, first_game - 1 - int(decisions))
    return buf, int(decisions)


def play_chunk(
    game: GameDefinition, players: int, seed: int, first_game: int, n_games: int,
    seating: Seating | None = None, total_games: int | None = None, blocks: int = 1,
    duplicate: bool = False, base: Path = Path("."),
) -> Chunk:
    """Play games first_game .. first_game + n_games - 1 of a run of `total_games` games
    (default: first_game + n_games) with a field's `seating` (default: random in every seat)
    and return their records and block aggregates (blocks of the whole run: game g belongs to
    block floor(u * blocks / U) of its rotation group u = g // R, U = ceil(total_games / R) for
    the field's R rotations; with one rotation, floor(g * blocks / total_games)). User-policy
    paths are relative to `base`."""
    seating = seating or homogeneous("random", players)
    total = first_game + n_games if total_games is None else total_games
    buf, decisions = play_chunk_columns(game, players, seed, first_game, n_games, seating, total,
                                        blocks, duplicate, user_fn(seating, base))
    p, g = to_structured(tables_for(game, players), buf.pr, buf.gr, n_games)
    aggregates = {name: getattr(buf.st.tallies, name).copy() for name in AGGREGATES}
    return Chunk(p, g, decisions, aggregates)


@dataclass
class TracedGame:
    trace: np.ndarray  # int64 words (vocabulary TRACE format)
    players: np.ndarray  # player records of the game, seat order
    game: np.ndarray  # the game record (length 1)


def play_traced(
    game: GameDefinition, players: int, seed: int, game_index: int,
    seating: Seating | None = None, capacity: int = TRACE_WORDS_PER_GAME,
    duplicate: bool = False, base: Path = Path("."),
) -> TracedGame:
    """Play game `game_index` of a run (its rotation and deal as play_chunk gives them) with its
    full trace (chance outcomes and every decision's legal set)."""
    from simcell.play.game import PLAY_GAME, record_game, seat_game

    gt = tables_for(game, players)
    seating = seating or homogeneous("random", players)
    st = game_state(gt, capacity)
    pr, gr = allocate_records(gt, 1)
    rotation = game_index % seating.rotations
    deal = game_index // seating.rotations if duplicate else game_index
    seat_game(st, seating.player_policy, seating.player_label, seating.player_params,
              seating.seat_orders, rotation)
    PLAY_GAME[game_loop(seating.player_policy)](st, gt, seed, deal, user_fn(seating, base), True,
                                                0, False, -1, *scratch_states(gt))
    if st.g[G_POLICY_ERROR]:
        raise _policy_failed(seating, game_index)
    if st.g[G_TRACE_OVERFLOW]:
        raise RuntimeError(f"trace buffer of {capacity} words too small; raise capacity")
    record_game(st, gt, pr, gr, 0, game_index, deal, rotation)
    p, g = to_structured(gt, pr, gr, 1)
    return TracedGame(st.trace[: st.g[G_TRACE_LEN]].copy(), p, g)
