"""From a config's policy field to the kernel's seating arrays: which policy and parameters
each player id plays, and the seat orders a game cycles through (player id stays apart from
seat, so seat advantage and policy strength are separate group-bys of the records).

- `policy = "x"`: one policy in every seat; one seat order (player id = seat).
- `seats = [...]`: a policy fixed to each seat; one seat order.
- `pool = [...]`: player i plays pool[i % len(pool)]; game g takes seat order g % R, where the
  R orders are the P cyclic shifts (rotation "cyclic") or all P! permutations (rotation "all"),
  so over every complete block of R games each player id sits in each seat equally often.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from simcell.config.load import PolicyField
from simcell.policies.registry import N_PARAMS, is_user_policy, kernel_id, param_vector, policy_names


@dataclass(frozen=True)
class Seating:
    """A field resolved for one player count (arrays as play_chunk of play/game.py takes them)."""

    policies: tuple[str, ...]  # record label -> policy name (the records' `policy` column)
    player_policy: np.ndarray  # int64[player] kernel policy id
    player_label: np.ndarray  # int64[player] index into `policies`
    player_params: np.ndarray  # float64[player, N_PARAMS]
    seat_orders: np.ndarray  # int64[rotation, seat] -> player id
    user_policy: str | None  # the field's user policy "file.py:function", if any

    @property
    def rotations(self) -> int:
        return int(self.seat_orders.shape[0])


def seat_orders(players: int, rotation: str) -> np.ndarray:
    """Rows of seat -> player id: the cyclic shifts, or every permutation in lexicographic order."""
    if rotation == "all":
        return np.array(list(itertools.permutations(range(players))), np.int64)
    return np.array([[(s + r) % players for s in range(players)] for r in range(players)], np.int64)


def seating(field: PolicyField, players: int) -> Seating:
    """Resolve a field for `players` players."""
    if field.policy is not None:
        by_player = [field.policy] * players
        orders = np.arange(players, dtype=np.int64)[None, :]
    elif field.seats is not None:
        by_player = list(field.seats)
        orders = np.arange(players, dtype=np.int64)[None, :]
    else:
        pool = field.pool or ()
        by_player = [pool[i % len(pool)] for i in range(players)]
        orders = seat_orders(players, field.rotation)
    users = sorted({n for n in by_player if is_user_policy(n)})
    if len(users) > 1:
        raise ValueError(f"field {field.name!r}: at most one user policy per field; found {users}")
    labels = policy_names(tuple(by_player))
    params = field.params_for(players)
    return Seating(
        policies=labels,
        player_policy=np.array([kernel_id(n) for n in by_player], np.int64),
        player_label=np.array([labels.index(n) for n in by_player], np.int64),
        player_params=np.array(
            [param_vector(n, params.get(n, {}), players) for n in by_player], np.float64
        ).reshape(players, N_PARAMS),
        seat_orders=orders,
        user_policy=users[0] if users else None,
    )


def homogeneous(policy: str, players: int, **params: float) -> Seating:
    """One built-in policy in every seat (tests, benchmarks)."""
    field = PolicyField(name=policy, policy=policy,
                        params=((policy, tuple(sorted(params.items()))),) if params else ())
    return seating(field, players)


def balance_table(s: Seating, n_games: int, first_game: int = 0) -> np.ndarray:
    """Games each policy label plays in each seat over games first_game .. + n_games - 1:
    int64[label, seat]."""
    players = s.seat_orders.shape[1]
    table = np.zeros((len(s.policies), players), np.int64)
    games = np.arange(first_game, first_game + n_games)
    per_rotation = np.bincount(games % s.rotations, minlength=s.rotations)
    for r, count in enumerate(per_rotation):
        for seat in range(players):
            table[s.player_label[s.seat_orders[r, seat]], seat] += count
    return table

