"""The choice step shared by `greedy` and `planner`: evaluate each visible card once, let the
policy name its cards of interest and what they need (evaluator_context), value every legal
action as it is listed (kernel/legal.py phase_one_listing, with values.py's value functions),
then pick (best, or softmax with the policy's temperature). One listing-and-valuing site, in the
turn loop, keeps the compiled kernel small."""

from __future__ import annotations

import numpy as np

from simcell.vocabulary import FIXED_ROWS, MAX_CARDS
from simcell.kernel.jit import kernel_jit_inline
from simcell.kernel.legal import pass_forced, phase_one_listing
from simcell.kernel.scratch import stack_array
from simcell.kernel.setup import setup_listing
from simcell.kernel.state import G_PHASE, PH_COMBO, PH_RETURN
from simcell.policies.evaluate import (
    V_CONTEST,
    V_FOCUS,
    V_NEED,
    V_RES,
    V_TEMPERATURE,
    need_to_gap,
    prepare_cards,
)
from simcell.policies.greedy import greedy_interest
from simcell.policies.planner import planner_interest
from simcell.policies.softmax import best_draw, softmax_draw
from simcell.policies.values import EvalContext, fixed_values, setup_value
from simcell.policies.view import fill_hand_sizes, view_of

ZERO5 = (0.0, 0.0, 0.0, 0.0, 0.0)


@kernel_jit_inline
def evaluator_context(v, gt, params, plan, ws, need, goal_bonus, fixed):
    """Fill the card workspace and the needs of the View's seat for one decision (the planner
    choosing its targets, greedy taking its hand) and return the context `ev`."""
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
    # the decision's per-unit worths and gaps as locals, read once
    worth = (params[V_RES], params[V_RES + 1], params[V_RES + 2], params[V_RES + 3],
             params[V_RES + 4])
    gap = (need[0], need[1], need[2], need[3], need[4])
    return EvalContext(v, params, ws, worth, gap, focus * params[V_NEED], interest, contest, fixed,
                       plan)


@kernel_jit_inline
def list_and_value(st, gt, seat, heuristic, plan, vals, legal):
    """The legal actions of the seat to move (setup or Phase 1) into `legal`, returning how
    many; for a heuristic seat (`heuristic`: greedy, planner, or the search's ranking;
    `plan`: the planner's values, for the planner and the search), each action's value in
    `vals` as well (the turn loop's stack vector). Inlined once into the turn loop, its one listing site."""
    # the per-decision card workspace, needs (5 resources), goal bonuses (7) and the values of
    # the actions whose stock changes the board fixes (evaluate.fixed_values) on the stack
    # (kernel/scratch.py): written often and read back at once, and no write there makes the
    # compiler read a State array again
    need = stack_array(1, 8, np.float64)[0]
    ws = stack_array(4, MAX_CARDS, np.float64)
    goal_bonus = stack_array(1, 8, np.float64)[0]
    fixed = stack_array(1, FIXED_ROWS, np.float64)[0]
    phase = st.g[G_PHASE]
    setup = phase == PH_RETURN or phase == PH_COMBO
    # a forced pass (no flask left to place) needs no values
    valued = heuristic and (setup or not pass_forced(st, gt, seat))
    if valued:
        fill_hand_sizes(st)
    v = view_of(st, seat)  # (not read without `valued`: the blank context's View)
    params = st.seating.params[seat]
    if valued:
        ev = evaluator_context(v, gt, params, plan, ws, need, goal_bonus, fixed)
    else:
        ev = EvalContext(v, params, ws, ZERO5, ZERO5, 0.0, np.int64(0), 0.0, fixed, plan)
    if not setup:
        if valued:
            fixed_values(ev, gt, fixed)
        return phase_one_listing(st, gt, ev, valued, vals, legal)
    n = setup_listing(st, gt, legal)
    if valued:
        for i in range(n):
            vals[i] = setup_value(ev, gt, legal[i])
    return n


@kernel_jit_inline
def choose_heuristic(vals, n_legal, params, key, greedy_only):
    """Index among the legal actions of the greedy or planner action, from the values
    list_and_value left in vals[:n_legal]: the best (the first of equal values) or a softmax
    draw; always a best one when `greedy_only` (the setup return: a draw could hand back the
    better of two dealt cards, which no competent player does)."""
    values = vals
    best = 0
    top = values[0]
    for i in range(1, n_legal):
        if values[i] > top:
            best = i
            top = values[i]
    if greedy_only:
        return best_draw(values, n_legal, best, key)
    return softmax_draw(values, n_legal, best, params[V_TEMPERATURE], key)
