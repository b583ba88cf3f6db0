"""The compile-time patch of kernel/jit.py: numba's IR inliner copies a callee's Scope once per
inlined call instead of once per block, and the compiled code is the same."""

from __future__ import annotations

import numba
import numpy as np
from numba.core import ir

from simcell.kernel import jit


def _functions():
    """A fresh callee with many blocks (branches) inlined twice into a fresh caller."""

    @numba.njit(inline="always")
    def callee(x, k):
        total = 0
        for i in range(x.shape[0]):
            if x[i] > 3:
                total += x[i] * k
            elif x[i] < -3:
                total -= k
            elif x[i] == 0:
                total += 7
            else:
                total += i
        if total > 100:
            total -= 100
        elif total < -100:
            total += 100
        return total

    @numba.njit
    def caller(x):
        return callee(x, 2) + 3 * callee(x[::-1].copy(), 5)

    return caller


def _compile_counting_var_copies(monkeypatch, enabled: bool):
    count = [0]
    original = ir.Var.__deepcopy__

    def counted(self, memo):
        count[0] += 1
        return original(self, memo)

    monkeypatch.setattr(ir.Var, "__deepcopy__", counted)
    monkeypatch.setattr(jit.INLINE_COPY, "enabled", enabled)
    caller = _functions()
    x = np.array([5, -9, 0, 1, 2, 4, -4, 0, 8], dtype=np.int64)
    result = caller(x)
    monkeypatch.undo()
    return result, count[0], caller.py_func(x)


def test_patch_is_installed_for_this_numba():
    assert jit.INLINE_COPY is not None


def test_shared_memo_copies_far_less_and_compiles_the_same(monkeypatch):
    numba_result, numba_copies, python_result = _compile_counting_var_copies(monkeypatch, False)
    shared_result, shared_copies, _ = _compile_counting_var_copies(monkeypatch, True)
    assert numba_result == shared_result == python_result
    # numba copies the whole Scope with each block; shared, once per copy of the callee
    assert 0 < shared_copies * 3 < numba_copies, (shared_copies, numba_copies)
