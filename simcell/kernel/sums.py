"""The runner's sums of a chunk's record rows by (block, policy, seat), compiled with the numba
layer so that no numba code lives above it (one pass over the rows; a numpy group-by would sort
or mask them once per key)."""

from __future__ import annotations

from simcell.kernel.jit import kernel_entry


@kernel_entry
def add_rows_by_key(rows, key, out):
    """out[k] += rows[i] for every i with key[i] == k, in one pass over the rows."""
    for i in range(rows.shape[0]):
        k = key[i]
        for j in range(rows.shape[1]):
            out[k, j] += rows[i, j]
