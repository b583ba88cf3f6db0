"""kernel/scratch.py: stack arrays have the shape, layout and element type asked for, hold what
is written to them for the rest of the call, and take literal sizes only."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba.core.errors import TypingError

from simcell.kernel.scratch import stack_array


@numba.njit(_nrt=False)
def _fill_and_sum(x):
    """Per pass of a loop, a 3 x 5 stack array filled from x, row sums into a second one."""
    total = 0.0
    for rep in range(3):
        a = stack_array(3, 5, np.float64)
        sums = stack_array(1, 3, np.float64)[0]
        for i in range(3):
            for j in range(5):
                a[i, j] = x[i, j] * (rep + 1)
        for i in range(3):
            sums[i] = 0.0
            for j in range(5):
                sums[i] += a[i, j]
        for i in range(3):
            total += sums[i]
    return total, a.shape[0], a.shape[1], a.strides[0], a.strides[1]


def test_stack_array_holds_what_is_written() -> None:
    x = np.arange(15.0).reshape(3, 5)
    total, rows, cols, s0, s1 = _fill_and_sum(x)
    assert total == x.sum() * (1 + 2 + 3)
    assert (rows, cols, s0, s1) == (3, 5, 40, 8)


@numba.njit(_nrt=False)
def _int_rows(n):
    a = stack_array(2, 4, np.int32)
    for i in range(2):
        for j in range(4):
            a[i, j] = n * i + j
    return a[1, 3], a.strides[0], a.strides[1]


def test_stack_array_of_int32() -> None:
    assert _int_rows(10) == (13, 16, 4)


def test_stack_array_takes_literal_sizes_only() -> None:
    @numba.njit(_nrt=False)
    def runtime_size(n):
        return stack_array(n, 4, np.float64)[0, 0]

    with pytest.raises(TypingError):
        runtime_size(3)
