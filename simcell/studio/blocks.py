"""One block of studio games, as a warm worker plays it: games first .. first + n - 1 of a run
(the same deals, seat orders and chance streams as `simcell run` on that seed), summed into what
the paired figures need (tools/compare/report.py's per-block sums, one block). A block is the
jackknife's unit: the studio pairs block b of an edit with block b of the baseline."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcell.config.load import PolicyField
from simcell.config.model import GameDefinition
from simcell.reports.changes import PLAYER_COLUMNS, PlayerSums, add_card_sums
from simcell.reports.paired import Sums
from simcell.reports.card_table import card_part_sums


@dataclass(frozen=True)
class BlockSpec:
    game: GameDefinition
    players: int
    seed: int
    field: PolicyField
    first: int  # the block's first game
    n: int  # its games


def warm_worker(loops: tuple[int, ...]) -> None:
    """A pool worker's initializer: the kernel loaded (from numba's cache) before the first edit."""
    from simcell.runner.warm import warm

    warm(loops)


def play_block(spec: BlockSpec) -> tuple[Sums, np.ndarray]:
    """The block's sums (each array with a leading block axis of length 1) and each player's
    final HP by game (for the correlation of paired results)."""
    from simcell.runner.fields import seating
    from simcell.runner.games import play_chunk_columns, user_fn
    from simcell.runner.records import player_table

    s = seating(spec.field, spec.players)  # the session refuses fields with a user policy
    buf, _ = play_chunk_columns(spec.game, spec.players, spec.seed, spec.first, spec.n, s,
                                spec.first + spec.n, 1, False, user_fn(s))
    df = player_table(buf.pr, spec.game, spec.players, spec.n).to_pandas()
    players = PlayerSums(spec.players, 1)
    players.add(df[["game", "seat"] + PLAYER_COLUMNS], np.zeros(len(df), np.int64))
    opening, dealt, _kept, acquired, completed = card_part_sums(df, spec.players, np.array([0, len(df)]))
    sums = add_card_sums(players.sums(), opening, dealt, acquired, completed,
                         _by_card(buf.st.tallies.offered[0]), _by_card(buf.st.tallies.bought[0]))
    return sums, players.final_hp()


def _by_card(tally: np.ndarray) -> np.ndarray:
    """A tally by (card id, ...) summed per card id, as one block of 64 ids."""
    out = np.zeros((1, 64))
    out[0, : tally.shape[0]] = tally.reshape(tally.shape[0], -1).sum(axis=1)
    return out
