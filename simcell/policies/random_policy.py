"""`random`: uniform over the legal actions, drawn from the seat's own policy stream."""

from __future__ import annotations

from simcell.kernel.jit import kernel_jit

from simcell.kernel.chance import uniform_index


@kernel_jit
def choose_random(n_legal, key):
    """Index of the chosen action among n_legal, from the decision's stream key."""
    return uniform_index(key, n_legal)
