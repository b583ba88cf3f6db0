"""The decoded reference evaluator: each legal action code decoded and dispatched to its kind's
value function (policies/values.py), the way the listing's values were worked out before the
listing valued each action where it lists it. tests/test_evaluator_shortcuts.py checks the
listing against it, bit for bit."""

from __future__ import annotations

import numpy as np

from simcell.kernel.codes import code_flask, code_kind, code_p1, code_p2, code_p3, code_target
from simcell.kernel.jit import kernel_jit_inline
from simcell.kernel.scratch import stack_array
from simcell.policies.heuristic import evaluator_context
from simcell.policies.values import (
    card_area_value,
    collect_value,
    completion_value,
    er_value,
    exhaust_value,
    golgi_value,
    grey_first,
    laureates_value,
    location_bonus,
    settle,
    setup_value,
    translate_value,
)
from simcell.vocabulary import (
    ACT_COMBO,
    ACT_EXHAUST,
    ACT_PASS,
    ACT_RETURN,
    FIXED_ROWS,
    FLASK_GREY,
    LA_CARD_AREA,
    LA_COLLECT,
    LA_DETOX,
    LA_ENZYME,
    LA_EXOCYTOSIS,
    LA_GOLGI,
    LA_LAUREATES,
    LA_PROTEIN_SYNTHESIS,
    LA_STEROID_SYNTHESIS,
    LA_TRANSLATE,
    ORG_ROUGH,
    ORG_SMOOTH,
)


@kernel_jit_inline
def place_value(ev, gt, code):
    """A placement code's value, without grey_first (dispatched on its location's action)."""
    loc = code_target(code)
    action = gt.loc_action[loc]
    p1 = code_p1(code)
    if action == LA_COLLECT:
        return collect_value(ev, gt, loc, p1)
    if action == LA_TRANSLATE:
        return translate_value(ev, gt, loc, p1)
    if action == LA_CARD_AREA:
        return card_area_value(ev, gt, loc, p1)
    if action == LA_EXOCYTOSIS:
        return completion_value(ev, gt, loc, code_p2(code), action)
    if action == LA_ENZYME or action == LA_DETOX:
        return completion_value(ev, gt, loc, p1, action)
    if action == LA_PROTEIN_SYNTHESIS:
        return er_value(ev, gt, loc, ORG_ROUGH, p1, code_p2(code))
    if action == LA_STEROID_SYNTHESIS:
        return er_value(ev, gt, loc, ORG_SMOOTH, p1, code_p2(code))
    if action == LA_GOLGI:
        return golgi_value(ev, gt, loc, p1, code_p2(code), code_p3(code))
    if action == LA_LAUREATES:
        return laureates_value(ev, gt, loc, p1)
    return settle(ev, 0.0, location_bonus(ev.seat_view, loc))


@kernel_jit_inline
def action_value(ev, gt, code):
    """One-step value of a legal action code for the context's seat."""
    kind = code_kind(code)
    if kind == ACT_PASS:
        return 0.0
    if kind == ACT_EXHAUST:
        return exhaust_value(ev, code_p1(code))
    if kind == ACT_RETURN or kind == ACT_COMBO:
        return setup_value(ev, gt, code)
    value = place_value(ev, gt, code)
    if code_flask(code) == FLASK_GREY:  # last: a grey placement is its own-flask twin + grey_first
        value += grey_first(ev)
    return value


@kernel_jit_inline
def evaluate_legal(v, gt, legal, n_legal, params, plan, values, need, ws, goal_bonus):
    """values[i] = the greedy (plan False) or planner (plan True) value of legal[i], each code
    decoded and valued by action_value: the reference the listing's values are tested against
    (tests/test_evaluator_shortcuts.py). Returns the index of the best (the first of equal
    values)."""
    ev = evaluator_context(v, gt, params, plan, ws, need, goal_bonus,
                           stack_array(1, FIXED_ROWS, np.float64)[0])
    best = 0
    top = 0.0
    for i in range(n_legal):
        x = action_value(ev, gt, legal[i])
        values[i] = x
        if i == 0 or x > top:
            best = i
            top = x
    return best
