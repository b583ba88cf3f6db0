"""Playing a game on from its current state, turn by turn: legal actions, the policy's choice
(or the one legal action), the trace, applying it. The one turn loop of simcell (turn_loop),
inlined where it is used: into the game loop (game.py) of a field of `random` in every seat
(without the policy dispatch) or of any other field without a search policy, and into
`play_on`, which the game loop of a field with a search policy calls (it stops before a
search-policy decision and the game loop hands it to the search) and the search's playouts
(play/rollout.py) run with planner players only."""

from __future__ import annotations

import numpy as np

from simcell.kernel.actions import apply_phase_one
from simcell.kernel.scratch import stack_array
from simcell.kernel.codes import code_p1
from simcell.vocabulary import MAX_VALUED
from simcell.kernel.jit import kernel_jit, kernel_jit_inline, kernel_jit_literal
from simcell.kernel.legal import phase_one_listing
from simcell.kernel.setup import apply_combo, apply_return, setup_listing
from simcell.kernel.state import G_PHASE, G_POLICY_ERROR, G_TO_MOVE, PH_COMBO, PH_OVER, PH_RETURN
from simcell.kernel.stock import trace_decision
from simcell.play.dispatch import choose_action, decision_key, is_heuristic
from simcell.policies.heuristic import list_and_value
from simcell.policies.random_policy import choose_random
from simcell.policies.registry import KERNEL_PLANNER, KERNEL_ROLLOUT

# play_on's return statuses
ON_OVER, ON_SEARCH, ON_STOPPED, ON_POLICY_ERROR = 0, 1, 2, 3


@kernel_jit_inline
def list_into(st, gt, legal):
    """Legal actions of the player to move (setup or Phase 1) into `legal`; returns how many."""
    phase = st.g[G_PHASE]
    if phase == PH_RETURN or phase == PH_COMBO:
        return setup_listing(st, gt, legal)
    return phase_one_listing(st, gt, None, False, st.workspace.values, legal)


@kernel_jit_inline
def list_legal(st, gt):
    """Legal actions of the player to move (setup or Phase 1) into st.workspace.legal; returns how many."""
    return list_into(st, gt, st.workspace.legal)


@kernel_jit_inline
def apply_decision(st, gt, code):
    """Apply the player to move's action (setup or Phase 1)."""
    phase = st.g[G_PHASE]
    if phase == PH_RETURN:
        apply_return(st, gt, code_p1(code))
    elif phase == PH_COMBO:
        apply_combo(st, gt, code_p1(code))
    else:
        apply_phase_one(st, gt, code)


@kernel_jit
def legal_step(st, gt):
    """list_legal as a real call, for the search's decisions (game.py; rare, so the call's cost
    does not show): the search's loop links one copy of the rules-only listing."""
    return list_legal(st, gt)


@kernel_jit
def decision_step(st, gt, code):
    """apply_decision as a real call, for the search (game.py, play/rollout.py), as
    legal_step."""
    apply_decision(st, gt, code)


@kernel_jit_inline
def total_decisions(st):
    n = 0
    for s in range(st.decisions.shape[0]):
        n += st.decisions[s]
    return n


@kernel_jit_inline
def keep_listing(st, legal, vals, n):
    """The listed actions and their values into the State's workspace (legal, values), where a
    caller reads them."""
    for j in range(n):
        st.workspace.legal[j] = legal[j]
        st.workspace.values[j] = vals[j]


@kernel_jit_literal
def turn_loop(st, gt, user_fn, stop_total, search, random_only):
    """Play the game in `st` on from its current state with its seats' policies. Stops
    (ON_STOPPED) before a policy decision once the seats' decisions add up to stop_total
    (>= 0), and, when `search`, before any decision of a search-policy seat (ON_SEARCH, with
    the legal actions in st.workspace.legal and their planner values in st.workspace.values; the caller
    decides, applies and calls again; ON_STOPPED leaves them there too). ON_OVER when
    the game is scored; ON_POLICY_ERROR (G_POLICY_ERROR set) when a user policy returned an
    index outside the legal list. `random_only` (a constant in each caller): every seat plays
    `random`, so the policy dispatch and the evaluator are left out of the compiled loop."""
    # the legal actions and their heuristic values on the stack (kernel/scratch.py): no State
    # array is stored to as they are listed, so the rules' and the evaluator's loads from the
    # State stay valid; they are copied to st.workspace.legal and st.workspace.values where the loop stops
    # at a decision, for the caller
    legal = stack_array(1, MAX_VALUED, np.int64)[0]
    vals = stack_array(1, MAX_VALUED, np.float64)[0]
    while st.g[G_PHASE] != PH_OVER:
        seat = st.g[G_TO_MOVE]
        if random_only:
            n = list_into(st, gt, legal)
        else:
            policy = st.seating.policy[seat]
            # the planner's values for the planner and the search (its ranking)
            plan = policy == KERNEL_PLANNER or policy == KERNEL_ROLLOUT
            n = list_and_value(st, gt, seat, is_heuristic(policy), plan, vals, legal)
        if n == 1:
            code = legal[0]
        else:
            if stop_total >= 0 and total_decisions(st) >= stop_total:
                keep_listing(st, legal, vals, n)
                return ON_STOPPED
            if random_only:
                i = choose_random(n, decision_key(st, gt, seat))
            else:
                # a search seat's decision: the planner values of its legal actions (the search's
                # ranking) were worked out with them, by the turn loop's one inlined evaluator
                if search and policy == KERNEL_ROLLOUT:
                    keep_listing(st, legal, vals, n)
                    return ON_SEARCH
                i = choose_action(policy, st, gt, seat, n, st.seating.params[seat], user_fn, vals,
                                  legal)
                if i < 0:
                    st.g[G_POLICY_ERROR] = seat + 1
                    return ON_POLICY_ERROR
            code = legal[i]
            st.decisions[seat] += 1
        trace_decision(st, seat, n == 1, legal, n, code)
        apply_decision(st, gt, code)
    return ON_OVER


@kernel_jit
def play_on(st, gt, user_fn, stop_total, search):
    """turn_loop for any field, as a real call: the game loop of a field with a search policy
    and the search's playouts."""
    return turn_loop(st, gt, user_fn, stop_total, search, False)
