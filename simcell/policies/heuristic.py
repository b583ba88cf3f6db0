"""The choice step shared by `greedy` and `planner`: evaluate each visible card once, let the
policy name its cards of interest and what they need, value every legal action with
evaluate.action_value, then pick (best, or softmax with the policy's temperature). One call
site for the evaluator keeps the compiled kernel small."""

from __future__ import annotations

from simcell.kernel.jit import kernel_jit, kernel_jit_inline
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
from simcell.policies.view import make_view


@kernel_jit
def heuristic_values(st, gt, seat, n_legal, params, plan):
    """st.policy_values[i] = the greedy (plan False) or planner (plan True) value of
    st.legal[i] for `seat`. A real call (not inlined): the evaluator is compiled once for the
    game loop and the rollout's ranking, which keeps the cold compile short."""
    evaluate_legal(make_view(st, seat), gt, st.legal, n_legal, params, plan, st.policy_values,
                   st.policy_need, st.policy_delta, st.policy_cards)


@kernel_jit_inline
def choose_heuristic(st, gt, seat, n_legal, params, key, plan):
    """Index among st.legal[:n_legal] of the greedy or planner action."""
    heuristic_values(st, gt, seat, n_legal, params, plan)
    return softmax_pick(st.policy_values, n_legal, params[V_TEMPERATURE], key)


@kernel_jit_inline
def evaluate_legal(v, gt, legal, n_legal, params, plan, values, need, delta, ws):
    """values[i] = the greedy (plan False) or planner (plan True) value of legal[i]."""
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
        values[i] = action_value(v, gt, params, ws, need, delta, focus, interest, contest, legal[i])
