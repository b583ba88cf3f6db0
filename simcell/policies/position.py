"""The worth of a seat's whole position, in Health Points: what the search (play/rollout.py)
closes a depth-limited playout with. It adds up what the heuristic evaluator credits action by
action (evaluate.py), so a playout cut short is judged as the playing bots judge their moves:
the HP scored, the receptor bonuses already earned (scored at the end, docs/rules.md §8), the stock
at its worth, each card in hand at the `card` share of its worth (scaled by whether it can still
be finished) plus the share its vesicle has reached, the expected end bonus of each goal
marked, and the First Player Marker. Read from the seat's own View of the State it is given."""

from __future__ import annotations

import numpy as np

from simcell.kernel.bits import lowest_bit
from simcell.kernel.jit import kernel_jit
from simcell.kernel.scoring import receptor_bonus
from simcell.kernel.scratch import stack_array
from simcell.kernel.stock import total_hp
from simcell.policies.evaluate import (
    V_RES,
    WS_STAGE,
    WS_TODO,
    WS_WORTH,
    goal_expectation,
    placements_left,
    prepare_cards,
)
from simcell.policies.registry import ROLLOUT_INDEX
from simcell.policies.view import fill_hand_sizes, view_of
from simcell.vocabulary import (
    ADDITIONAL_RESOURCE,
    MAX_CARDS,
    N_RESOURCES,
)

L_WEIGHTS = ROLLOUT_INDEX["leaf_stock"]  # six consecutive: stock, hand, er, golgi, goals, marker


# The terms of a position (position_terms), each weighed by a search parameter (position_value):
# the HP and receptor bonuses already earned (weight 1), the stock at its worth, the cards in
# hand at their worth scaled by whether they can still be finished, the worth of those whose
# vesicle is at an ER and at the Golgi, the expected end bonus of the goals marked, the First
# Player Marker.
T_HP, T_STOCK, T_HAND, T_ER, T_GOLGI, T_GOALS, T_MARKER = range(7)
N_TERMS = 7


@kernel_jit
def position_terms(st, gt, seat, params, out):
    """out[T_*] = the terms of the seat's position (its cards valued with the row `params`)."""
    ws = stack_array(4, MAX_CARDS, np.float64)
    goal_bonus = stack_array(1, 8, np.float64)[0]
    fill_hand_sizes(st)
    v = view_of(st, seat)
    prepare_cards(v, gt, params, ws, goal_bonus)
    for t in range(N_TERMS):
        out[t] = 0.0
    out[T_HP] = np.float64(total_hp(st, seat) + receptor_bonus(st, gt, seat))
    for r in range(N_RESOURCES):
        out[T_STOCK] += params[V_RES + r] * st.stock[seat, r]
    left = placements_left(v, gt)
    cards = v.hand
    while cards != 0:
        c = lowest_bit(cards)
        cards &= cards - np.int64(1)
        if gt.card_type[c] == ADDITIONAL_RESOURCE:
            continue
        todo = ws[WS_TODO, c]
        if todo > left:
            continue  # it can no longer be finished
        worth = ws[WS_WORTH, c]
        out[T_HAND] += (1.0 - todo / (left + 1.0)) * worth
        stage = ws[WS_STAGE, c]
        out[T_ER] += worth if stage == 1 else 0.0
        out[T_GOLGI] += worth if stage == 2 else 0.0
    for gi in range(gt.goals_revealed):
        if v.goal_mark[gi, seat] != 0:
            out[T_GOALS] += goal_expectation(v, gt, gi)
    out[T_MARKER] = 1.0 if v.marker == seat else 0.0


@kernel_jit
def position_value(st, gt, seat, params):
    """The seat's position in HP: its terms weighed by the row's leaf weights (module docstring)."""
    terms = stack_array(1, N_TERMS, np.float64)[0]
    position_terms(st, gt, seat, params, terms)
    value = terms[T_HP]
    for t in range(1, N_TERMS):
        value += params[L_WEIGHTS + t - 1] * terms[t]
    return value
