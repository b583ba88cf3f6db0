"""kernel/ref.py: a Ref reads every field of the tuple it was made from (arrays, integers,
booleans, named parts), also after stores to the arrays' contents, and from Python through a rules
function's companion. (That the rules take Refs, as one word with invariant loads: test_jit.py.)"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcell.kernel.jit import kernel_entry, kernel_jit
from simcell.kernel.ref import as_ref


class _Part(NamedTuple):
    counts: np.ndarray
    k: int


class _Mixed(NamedTuple):
    n: int
    flag: bool
    values: np.ndarray
    grid: np.ndarray
    part: _Part


@kernel_jit
def _read(t, i, j):
    t.values[i] += 1.0  # a store to an array's contents; the fields stay valid after it
    t.part.counts[i] += t.part.k  # a named part is a Ref too: the store reaches the array
    return t.n + (10 if t.flag else 0) + t.values[i] + t.grid[i, j] + t.grid.shape[1]


@kernel_entry
def _through_ref(t, i, j):
    r = as_ref(t)
    return _read(r, i, j) + _read(as_ref(r), i, j)


def test_a_ref_reads_every_field_of_its_tuple() -> None:
    t = _Mixed(7, True, np.array([0.5, 1.5]), np.arange(6, dtype=np.int64).reshape(2, 3),
               _Part(np.zeros(2, np.int64), 4))
    # first call: values[1] 1.5 -> 2.5; second: 2.5 -> 3.5 (each reads after its own store)
    assert _through_ref(t, 1, 2) == (7 + 10 + 2.5 + 5 + 3) + (7 + 10 + 3.5 + 5 + 3)
    assert t.values[1] == 3.5
    assert t.part.counts.tolist() == [0, 8]
    assert _read(t._replace(flag=False), 0, 0) == 7 + 1.5 + 0 + 3  # from Python: a companion
