"""Duplicate matches on a warm pool of workers: one player with worths of its own among copies of
the field's policy, every deal played under each cyclic seat order (duplicate mode), so the
deal's luck cancels and the deviating player sits in every seat equally often. A field against
itself plays the same game under every order, so its player 0 scores exactly the fair share on
every deal: the deviation's gain needs no baseline run. `simcell fit` measures its candidates
with it, many small matches on one pool started once."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from simcell.config.load import PolicyField
from simcell.config.model import GameDefinition
from simcell.policies.registry import LABEL_MARK, LOOP_POLICIES
from simcell.runner.backends import end_pool, worker_start

DEVIANT = "dev"  # the label of the deviating player's policy


@dataclass(frozen=True)
class Stretch:
    """Deals first .. first + n - 1 of a match (each deal P games, one per seat order)."""

    game: GameDefinition
    players: int
    policy: str  # the field's policy
    field: tuple[tuple[str, float], ...]  # its worths (over its defaults at the count)
    deviant: tuple[tuple[str, float], ...]  # player 0's
    seed: int
    first: int
    n: int


def stretch_margins(s: Stretch) -> np.ndarray:
    """Player 0's win share minus the fair share on each deal of the stretch (mean over the
    deal's seat orders, in percentage points)."""
    from simcell.runner.fields import seating
    from simcell.runner.games import play_chunk_columns, user_fn

    dev = f"{s.policy}{LABEL_MARK}{DEVIANT}"
    field = PolicyField(name="match", pool=(dev,) + (s.policy,) * (s.players - 1), rotation="cyclic",
                        params=((s.policy, s.field), (dev, s.deviant)))
    seat = seating(field, s.players)
    p = s.players
    buf, _ = play_chunk_columns(s.game, p, s.seed, s.first * p, s.n * p, seat, (s.first + s.n) * p,
                                1, True, user_fn(seat))
    m = s.n * p * p  # player rows: games x seats
    player = np.asarray(buf.pr.player[:m])
    share = np.asarray(buf.pr.win_share[:m])[player == 0].reshape(s.n, p)  # deal-major
    return 100.0 * (share.mean(axis=1) - 1.0 / p)


def _worker_start(parent: int, loops: tuple[int, ...]) -> None:
    worker_start(parent)
    from simcell.runner.warm import warm

    warm(loops)


class MatchPool:
    """Worker processes, started once and warm (the kernel loaded), that play matches split
    into stretches, one per worker. A context manager: leaving it, normally or not, ends them."""

    def __init__(self, workers: int | None = None, loops: tuple[int, ...] = (LOOP_POLICIES,)):
        self.workers = workers or os.cpu_count() or 1
        self.loops = loops
        self.pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> MatchPool:
        from simcell.runner.warm import warm

        warm(self.loops)  # compiled here once; the workers load it from the cache
        if self.workers > 1:
            self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_worker_start, initargs=(os.getpid(), self.loops))
        return self

    def __exit__(self, exc_type, *exc) -> bool:
        if self.pool is not None:
            end_pool(self.pool, wait=exc_type is None)
            self.pool = None
        return False

    def margins(self, game: GameDefinition, players: int, policy: str, field: dict[str, float],
                deviant: dict[str, float], seed: int, deals: int) -> np.ndarray:
        """Player 0's margin over the fair share on each of `deals` deals (pp), player 0
        playing `policy` with the worths `deviant`, the others with `field`."""
        f, d = tuple(sorted(field.items())), tuple(sorted(deviant.items()))
        parts = min(self.workers, deals)
        edges = np.linspace(0, deals, parts + 1).astype(int)
        stretches = [Stretch(game, players, policy, f, d, seed, int(a), int(b - a))
                     for a, b in zip(edges[:-1], edges[1:])]
        if self.pool is None:
            return np.concatenate([stretch_margins(s) for s in stretches])
        return np.concatenate(list(self.pool.map(stretch_margins, stretches)))
