"""64-bit card-id bit sets (bit i = card id i): counting and walking their set bits without a
loop over every card id."""

from __future__ import annotations

import numpy as np

from simcell.kernel.jit import kernel_jit_inline

# De Bruijn sequence B(2, 6) and the index of each of its 6-bit windows: for a single set bit
# b = 1 << i, ((b * DEBRUIJN) >> 58) names the window that starts at bit i.
DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
DEBRUIJN_INDEX = np.array(
    [0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
     62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
     63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
     46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6],
    dtype=np.int64,
)
S58 = np.uint64(58)


@kernel_jit_inline
def lowest_bit(mask):
    """Index of the lowest set bit of a non-zero int64 bit set."""
    m = np.uint64(mask)
    low = m & (~m + np.uint64(1))
    return DEBRUIJN_INDEX[np.int64((low * DEBRUIJN) >> S58)]


@kernel_jit_inline
def popcount(mask):
    """Number of set bits of an int64 bit set."""
    n = 0
    while mask != 0:
        mask &= mask - np.int64(1)
        n += 1
    return n
