"""Dispatch from a built-in policy id to its jitted choice function (ids: registry order).
Integer dispatch keeps every built-in policy cacheable (no function arguments)."""

from __future__ import annotations

from simcell.kernel.jit import kernel_jit

from simcell.kernel.chance import policy_index, stream_key
from simcell.kernel.enums import CHANCE_POLICY
from simcell.kernel.state import G_DEAL, G_SEED
from simcell.policies.random_policy import choose_random

POLICY_RANDOM = 0


@kernel_jit
def choose_action(policy, st, gt, seat, n_legal):
    """The index, among st.legal[:n_legal], of the action the seat's policy takes."""
    key = stream_key(
        st.g[G_SEED], gt.players, st.g[G_DEAL], CHANCE_POLICY,
        policy_index(seat, st.decisions[seat]),
    )
    if policy == POLICY_RANDOM:
        return choose_random(n_legal, key)
    return choose_random(n_legal, key)
