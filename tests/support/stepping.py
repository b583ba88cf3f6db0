"""Stepping a game from Python for tests and benchmarks: a game stopped before a given policy
decision (traced), its next decision, and copies of a State to compare two continuations."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simcell.config.model import GameDefinition
from simcell.kernel.state import G_TRACE_LEN
from simcell.policies.registry import game_loop
from simcell.policies.user import compile_user_policy, no_user_policy
from simcell.runner.fields import Seating
from simcell.runner.games import TRACE_WORDS_PER_GAME, game_state, scratch_states, tables_for


def game_in_progress(
    game: GameDefinition, players: int, seed: int, game_index: int, seating: Seating,
    decisions: int, capacity: int = TRACE_WORDS_PER_GAME,
):
    """The (State, GameTables) of game `game_index` just before its policy decision number
    `decisions` + 1 (traced), or None if the game has fewer decisions."""
    from simcell.play.game import PLAY_GAME, seat_game
    from simcell.kernel.state import G_PHASE, PH_OVER

    gt = tables_for(game, players)
    st = game_state(gt, capacity)
    rotation = game_index % seating.rotations
    seat_game(st, seating.player_policy, seating.player_label, seating.player_params,
              seating.seat_orders, rotation)
    PLAY_GAME[game_loop(seating.player_policy)](st, gt, seed, game_index, no_user_policy(), True,
                                                0, False, decisions, *scratch_states(gt))
    return None if st.g[G_PHASE] == PH_OVER else (st, gt)


def next_decision(st, gt, base: Path = Path("."), seating: Seating | None = None) -> tuple[int, int]:
    """Let the State's game take its next policy decision; returns (seat, chosen code). The
    State moves on (copy it first to keep it)."""
    from simcell.vocabulary import TRACE_DECISION
    from simcell.play.game import PLAY_GAME

    start = int(st.g[G_TRACE_LEN])
    user_fn = (compile_user_policy(seating.user_policy, base)
               if seating is not None and seating.user_policy is not None else no_user_policy())
    PLAY_GAME[game_loop(st.seating.policy)](st, gt, 0, 0, user_fn, True, 0, True, 1, *scratch_states(gt))
    trace = st.trace
    i = start
    while i < st.g[G_TRACE_LEN]:
        if trace[i] == TRACE_DECISION:
            n = int(trace[i + 3])
            if trace[i + 2] == 0:  # not automatic
                return int(trace[i + 1]), int(trace[i + 4 + n])
            i += 5 + n
        else:  # a shuffle: purpose, index, n, ids
            i += 4 + int(trace[i + 3])
    raise RuntimeError("the game ended without another policy decision")


def copy_state(st):
    """An independent copy of a State (every array copied, its named parts too)."""
    return type(st)(*(copy_state(a) if isinstance(a, tuple) else np.copy(a) for a in st))


def state_arrays(st, prefix: str = ""):
    """(name, array) of every array of a State, its named parts' as part.name."""
    for name, a in zip(st._fields, st):
        if isinstance(a, tuple):
            yield from state_arrays(a, f"{prefix}{name}.")
        else:
            yield prefix + name, a
