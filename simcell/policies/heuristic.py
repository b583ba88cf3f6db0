"""The choice step shared by `greedy` and `planner`: evaluate each visible card once, let the
policy name its cards of interest and what they need, value every legal action with
evaluate.action_value, then pick (best, or softmax with the policy's temperature). One call
site for the evaluator keeps the compiled kernel small."""

from __future__ import annotations

from simcell.kernel.jit import kernel_jit_inline
from simcell.policies.evaluate import (
    V_CONTEST,
    V_FOCUS,
    V_TEMPERATURE,
    action_value,
    prepare_cards,
    softmax_pick,
)
from simcell.policies.greedy import greedy_interest
from simcell.policies.planner import planner_interest


@kernel_jit_inline
def choose_heuristic(v, gt, legal, n_legal, params, key, plan, values, need, ws):
    """Index among legal[:n_legal] of the greedy (plan False) or planner (plan True) action."""
    prepare_cards(v, gt, params, ws)
    if plan:
        interest = planner_interest(v, gt, params, ws, need)
        focus = params[V_FOCUS]
        contest = params[V_CONTEST]
    else:
        interest = greedy_interest(v, gt, ws, need)
        focus = 1.0
        contest = 0.0
    for i in range(n_legal):
        values[i] = action_value(v, gt, params, ws, need, focus, interest, contest, legal[i])
    return softmax_pick(values, n_legal, params[V_TEMPERATURE], key)
