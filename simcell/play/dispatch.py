"""Dispatch from a kernel policy id (registry.KERNEL_*) to its choice function. Integer dispatch
keeps every built-in policy cacheable (no function arguments); a user policy arrives as a
first-class function (a numba cfunc, policies/user.py), which the cached kernel calls by pointer.

Every policy gets its seat's observation (a View, or for user policies the flat observation
vector of kernel/observation.py), the legal actions, its parameter row and its own chance
stream (docs/rules.md §11: keyed by seat and that seat's decision count)."""

from __future__ import annotations

import numpy as np

from simcell.kernel.chance import policy_index, splitmix64
from simcell.kernel.jit import kernel_jit_inline
from simcell.kernel.observation import observe
from simcell.kernel.state import G_PHASE, G_POLICY_PREFIX, PH_RETURN
from simcell.policies.heuristic import choose_heuristic
from simcell.policies.random_policy import choose_random
from simcell.policies.registry import KERNEL_RANDOM, KERNEL_USER


@kernel_jit_inline
def decision_key(st, gt, seat):
    """Stream key of the seat's next decision: stream_key(seed, players, deal, CHANCE_POLICY,
    policy_index(seat, decisions)), from the game's policy-stream prefix (setup.set_policy_prefix)."""
    return splitmix64(np.uint64(st.g[G_POLICY_PREFIX]) ^ policy_index(seat, st.decisions[seat]))



@kernel_jit_inline
def is_heuristic(policy):
    """Do the seat's decisions need the heuristic evaluator's values of its legal actions
    (greedy, planner, and a search policy, which ranks its candidates by the planner's values)?"""
    return policy != KERNEL_RANDOM and policy != KERNEL_USER


@kernel_jit_inline
def choose_action(policy, st, gt, seat, n_legal, params, user_fn, vals, legal):
    """The index, among legal[:n_legal], of the action the seat's policy takes (a heuristic
    policy's from the values listed with the legal actions in `vals`, heuristic.list_and_value)."""
    key = decision_key(st, gt, seat)
    if policy == KERNEL_RANDOM:
        return choose_random(n_legal, key)
    if policy == KERNEL_USER:  # a user policy reads the flat observation vector
        observe(st, gt, seat, st.workspace.observation)
        for j in range(n_legal):  # and the legal actions in the State (its signature's array)
            st.workspace.legal[j] = legal[j]
        i = user_fn(st.workspace.observation, st.workspace.legal, n_legal, params, key)
        return i if 0 <= i < n_legal else -1  # -1: the runner reports the bad index
    return choose_heuristic(vals, n_legal, params, key, st.g[G_PHASE] == PH_RETURN)
