"""The kernel's chance streams (docs/rules.md §11, `simcell/kernel/chance.py`) in plain Python, so
that the environment deals exactly the kernel's games from the same (seed, players, deal) without
importing numba. tests/test_env.py checks every shuffle against the kernel's."""

from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


def splitmix64(x: int) -> int:
    """One SplitMix64 output for the state x, in uint64 arithmetic."""
    z = (x + GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * MIX1) & MASK
    z = ((z ^ (z >> 27)) * MIX2) & MASK
    return z ^ (z >> 31)


def stream_key(seed: int, players: int, deal: int, purpose: int, index: int) -> int:
    """The key of one chance stream: a hash chain over its five coordinates."""
    h = splitmix64(seed & MASK)
    for coordinate in (players, deal, purpose, index):
        h = splitmix64(h ^ (coordinate & MASK))
    return h


def keyed_shuffle(key: int, ids: list[int]) -> list[int]:
    """`ids` ordered by (hash of key and id, id): an item's place depends only on the key and the
    set being shuffled."""
    return sorted(ids, key=lambda i: (splitmix64(key ^ splitmix64((i + 1) & MASK)), i))


class KeyedShuffles:
    """The shuffles of one game (seed, players, deal), as the referee's game loop asks for them."""

    def __init__(self, seed: int, players: int, deal: int) -> None:
        self.seed, self.players, self.deal = seed, players, deal

    def __call__(self, purpose: int, index: int, ids: list[int]) -> list[int]:
        return keyed_shuffle(stream_key(self.seed, self.players, self.deal, purpose, index), ids)
