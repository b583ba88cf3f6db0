"""Bit-set helpers of the kernel (kernel/bits.py): the lowest set bit and the set-bit count are
LLVM's cttz and ctpop, and float_from_bits is a plain bit cast (the softmax's 2**k)."""

from __future__ import annotations

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simcell.kernel.bits import float_from_bits, lowest_bit, popcount


@settings(max_examples=500, deadline=None)
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1).filter(lambda m: m != 0))
def test_lowest_bit_and_popcount_match_python(mask: int) -> None:
    unsigned = mask & (2**64 - 1)
    assert lowest_bit(np.int64(mask)) == (unsigned & -unsigned).bit_length() - 1
    assert popcount(np.int64(mask)) == bin(unsigned).count("1")


def test_card_sets_at_the_edges() -> None:
    assert popcount(np.int64(0)) == 0
    for i in range(64):
        bit = np.int64(np.uint64(1) << np.uint64(i))
        assert lowest_bit(bit) == i
        assert popcount(bit) == 1
        assert lowest_bit(np.int64(-1) << np.int64(i)) == i  # every bit from i up


@numba.njit(cache=False)
def _bits_to_float(bits):
    return float_from_bits(bits)


def test_float_from_bits_is_a_bit_cast() -> None:
    for j in range(61):  # the softmax's 2**-j (exponent field 1023 - j)
        assert _bits_to_float(np.int64(1023 - j) << np.int64(52)) == 2.0**-j
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**62, 200, dtype=np.int64)
    got = np.array([_bits_to_float(b) for b in bits])
    assert np.array_equal(got.view(np.int64), bits)
