"""The choice step shared by `greedy` and `planner`: evaluate each visible card once, let the
policy name its cards of interest and what they need, value every legal action with
evaluate.action_value, then pick (best, or softmax with the policy's temperature). One call
site for the evaluator keeps the compiled kernel small."""

from __future__ import annotations

import numpy as np

from simcell.kernel.codes import code_flask, code_kind
from simcell.kernel.enums import ACT_PLACE, FLASK_GREY, MAX_CARDS
from simcell.kernel.jit import kernel_jit_inline
from simcell.kernel.legal import GREY_BIT
from simcell.kernel.scratch import stack_array
from simcell.policies.evaluate import (
    V_CONTEST,
    V_FOCUS,
    V_GREY,
    V_NEED,
    V_RES,
    V_TEMPERATURE,
    action_value,
    need_to_gap,
    prepare_cards,
)
from simcell.policies.greedy import greedy_interest
from simcell.policies.planner import planner_interest
from simcell.policies.softmax import softmax_draw
from simcell.policies.view import make_view


@kernel_jit_inline
def heuristic_values(st, gt, seat, n_legal, params, plan):
    """st.policy_values[i] = the greedy (plan False) or planner (plan True) value of
    st.legal[i] for `seat`. Inlined into its one caller, the turn loop (the rollout's ranking
    reads the values the turn loop leaves): as a real call it took the State and GameTables as ~930 words pushed on the
    stack per decision, a third of the turn loop's time under greedy play (measured with perf).
    Returns the index of the best value (the first of equal ones)."""
    # the per-decision card workspace, needs (5 resources) and goal bonuses (7) on the stack
    # (kernel/scratch.py): written often and read back at once, and no write there makes the
    # compiler read a State array again
    need = stack_array(1, 8, np.float64)[0]
    ws = stack_array(4, MAX_CARDS, np.float64)
    goal_bonus = stack_array(1, 8, np.float64)[0]
    return evaluate_legal(make_view(st, seat), gt, st.legal, n_legal, params, plan,
                          st.policy_values, need, ws, goal_bonus)


@kernel_jit_inline
def choose_heuristic(st, gt, seat, n_legal, params, key, plan, rank_only):
    """Index among st.legal[:n_legal] of the greedy or planner action; with rank_only, -1 and
    the values left in st.policy_values (the rollout policy ranks its candidates by them)."""
    best = heuristic_values(st, gt, seat, n_legal, params, plan)
    if rank_only:
        return -1
    return softmax_draw(st.policy_values, n_legal, best, params[V_TEMPERATURE], key)


@kernel_jit_inline
def evaluate_legal(v, gt, legal, n_legal, params, plan, values, need, ws, goal_bonus):
    """values[i] = the greedy (plan False) or planner (plan True) value of legal[i]; returns
    the index of the best (the first of equal values)."""
    prepare_cards(v, gt, params, ws, goal_bonus)
    if plan:
        interest = planner_interest(v, gt, params, ws, need)
        focus = params[V_FOCUS]
        contest = params[V_CONTEST]
    else:
        interest = greedy_interest(v, gt, ws, need)
        focus = 1.0
        contest = 0.0
    need_to_gap(v, need)
    # the decision's per-unit worths and gaps as locals, read once (action_value)
    worth = (params[V_RES], params[V_RES + 1], params[V_RES + 2], params[V_RES + 3],
             params[V_RES + 4])
    gap = (need[0], need[1], need[2], need[3], need[4])
    focus_need = focus * params[V_NEED]
    # Phase 1 lists every grey-flask placement after all own-flask ones, each grey copy
    # `n_grey` places after its own-flask twin (kernel/legal.py); a grey copy is worth its
    # twin plus grey_first (action_value adds it last), so it is not evaluated again
    n_grey = 0
    while n_grey < n_legal and is_grey_placement(legal[n_legal - 1 - n_grey]):
        n_grey += 1
    first_grey = n_legal - n_grey
    # with own flasks left, the grey placements copy every own-flask one (so the first grey
    # copy has its twin n_grey places before it); with none left, they have no twins
    twin = first_grey - n_grey
    copied = n_grey > 0 and twin >= 0 and legal[twin] == legal[first_grey] ^ GREY_BIT
    end = first_grey if copied else n_legal
    best = 0
    top = 0.0
    for i in range(end):
        x = action_value(v, gt, params, ws, worth, gap, focus_need, interest, contest, legal[i])
        values[i] = x
        if i == 0 or x > top:
            best = i
            top = x
    if copied:
        grey_first = params[V_GREY]
        for i in range(first_grey, n_legal):  # no call and no carried value: vectorised
            values[i] = values[i - n_grey] + grey_first
        for i in range(first_grey, n_legal):
            if values[i] > top:
                best = i
                top = values[i]
    return best


@kernel_jit_inline
def is_grey_placement(code):
    return code_kind(code) == ACT_PLACE and code_flask(code) == FLASK_GREY
