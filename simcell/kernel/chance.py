"""Chance streams (docs/rules.md §11): counter-based SplitMix64 hashing of (master seed, player count,
deal, purpose, index), keyed shuffles that order item ids by a hash of (key, id), and uniform
draws. All arithmetic stays in uint64 so that results never depend on threads or machines."""

from __future__ import annotations

import numpy as np
from simcell.kernel.jit import kernel_jit, kernel_jit_inline

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S11 = np.uint64(11)
S32 = np.uint64(32)
TWO53 = 9007199254740992.0


@kernel_jit
def splitmix64(x):
    """One SplitMix64 output for the state x (uint64 in, uint64 out)."""
    z = np.uint64(x) + GOLDEN
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


@kernel_jit_inline
def stream_prefix(seed, players, deal, purpose):
    """The hash chain of stream_key over its first four coordinates (one purpose of a deal)."""
    h = splitmix64(np.uint64(seed))
    h = splitmix64(h ^ np.uint64(players))
    h = splitmix64(h ^ np.uint64(deal))
    return splitmix64(h ^ np.uint64(purpose))


@kernel_jit_inline
def stream_key(seed, players, deal, purpose, index):
    """The key of one chance stream: a hash chain over its five coordinates."""
    return splitmix64(stream_prefix(seed, players, deal, purpose) ^ np.uint64(index))


@kernel_jit_inline
def item_hash(key, item):
    """The sort key of item id `item` in the shuffle keyed by `key`."""
    return splitmix64(key ^ splitmix64(np.uint64(item) + np.uint64(1)))


@kernel_jit
def keyed_shuffle(key, ids, n, hashes):
    """Order ids[:n] in place by (item_hash(key, id), id): a shuffle keyed by item id, so
    an item's place depends only on the key and the set being shuffled. `hashes` is a uint64
    workspace of at least n entries."""
    for i in range(n):
        hashes[i] = item_hash(key, ids[i])
    for i in range(1, n):  # insertion sort: n is at most 64
        h = hashes[i]
        v = ids[i]
        j = i - 1
        while j >= 0 and (hashes[j] > h or (hashes[j] == h and ids[j] > v)):
            hashes[j + 1] = hashes[j]
            ids[j + 1] = ids[j]
            j -= 1
        hashes[j + 1] = h
        ids[j + 1] = v


@kernel_jit_inline
def uniform_index(key, n):
    """A uniform draw from 0..n-1 determined by the stream key."""
    u = np.float64(splitmix64(key) >> S11) / TWO53
    i = np.int64(u * n)
    return i if i < n else n - 1


@kernel_jit_inline
def policy_index(seat, decision):
    """Stream index of a seat's decision: seat << 32 | decision number."""
    return (np.uint64(seat) << S32) | np.uint64(decision)
