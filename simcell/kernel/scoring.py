"""The end of the game (docs/rules.md §5, §8): goal bonuses, receptor bonuses, win shares and ranks."""

from __future__ import annotations

import numpy as np
from simcell.kernel.jit import kernel_jit, kernel_jit_inline

from simcell.vocabulary import (
    GC_MOST_COMPLETED,
    GC_PER_COMPLETED,
    GC_PER_DISTINCT_TYPES,
    GC_PER_LEFTOVER,
    PROTEIN_HORMONE,
    PROTEIN_RECEPTOR,
    SRC_GOAL_BONUS,
    SRC_RECEPTOR_BONUS,
    STEROID_HORMONE,
    STEROID_RECEPTOR,
)
from simcell.kernel.state import G_PHASE, PH_OVER
from simcell.kernel.stock import total_hp


@kernel_jit_inline
def completed_in(completed_by_type, seat, type_bits):
    """Cards the seat completed of the completed types in the bit set (`completed_by_type`:
    State.completed_by_type, or a View's: [seat, completed type])."""
    n = 0
    for t in range(6):
        if (type_bits >> t) & 1:
            n += completed_by_type[seat, t]
    return n


@kernel_jit_inline
def first_marker_worth(gt, goal_nmark):
    """HP of a first marker placed on a goal card now (rules.first_marker_hp): its value for the
    number of goal cards that already hold a marker (`goal_nmark`: State's or a View's)."""
    claims = 0
    for gi in range(gt.goals_revealed):
        if goal_nmark[gi] > 0:
            claims += 1
    return gt.first_marker_hp[min(claims, gt.first_marker_hp.shape[0] - 1)]


@kernel_jit
def goal_bonus(st, gt, goal, seat):
    """End-game bonus of goal card `goal` (data position) for a seat with a marker on it."""
    crit = gt.goal_criterion[goal]
    hp = gt.goal_hp[goal]
    if crit == GC_PER_COMPLETED:
        return hp * completed_in(st.completed_by_type, seat, gt.goal_types[goal])
    if crit == GC_MOST_COMPLETED:
        mine = completed_in(st.completed_by_type, seat, gt.goal_types[goal])
        if mine < 1:
            return 0
        for s in range(gt.players):
            if completed_in(st.completed_by_type, s, gt.goal_types[goal]) > mine:
                return 0
        return hp
    if crit == GC_PER_DISTINCT_TYPES:
        n = 0
        for t in range(6):
            if st.completed_by_type[seat, t] > 0:
                n += 1
        return hp * n
    if crit == GC_PER_LEFTOVER:
        return hp * (st.stock[seat, gt.goal_res[goal]] // gt.goal_n[goal])
    return 0


@kernel_jit
def end_game(st, gt):
    """Score goal bonuses, then receptor bonuses; the game is over."""
    for gi in range(gt.goals_revealed):
        goal = st.goals[gi]
        for s in range(gt.players):
            if st.goal_mark[gi, s]:
                paid = goal_bonus(st, gt, goal, s)
                st.goal_paid[gi, s] = paid
                st.hp[s, SRC_GOAL_BONUS] += paid
    for s in range(gt.players):
        st.hp[s, SRC_RECEPTOR_BONUS] += receptor_bonus(st, gt, s)
    st.g[G_PHASE] = PH_OVER


@kernel_jit
def receptor_bonus(st, gt, seat):
    """The receptor bonuses of the seat's completed receptors: each one's bonus per completed
    hormone of its kind (scored at the end; the search's position value reads it earlier)."""
    bonus = 0
    for c in range(gt.n_ids):
        if (st.completed[seat] >> np.int64(c)) & 1:
            t = gt.card_type[c]
            if t == PROTEIN_RECEPTOR:
                bonus += gt.card_bonus[c] * st.completed_by_type[seat, PROTEIN_HORMONE]
            elif t == STEROID_RECEPTOR:
                bonus += gt.card_bonus[c] * st.completed_by_type[seat, STEROID_HORMONE]
    return bonus


@kernel_jit
def final_scores(st, gt, out_hp, out_share, out_rank):
    """Final HP, win share (ties split) and rank per seat; returns 1 if the win was tied."""
    p = gt.players
    best = -1
    for s in range(p):
        t = total_hp(st, s)
        out_hp[s] = t
        if t > best:
            best = t
    k = 0
    for s in range(p):
        if out_hp[s] == best:
            k += 1
    for s in range(p):
        out_share[s] = 1.0 / k if out_hp[s] == best else 0.0
        above = 0
        for o in range(p):
            if out_hp[o] > out_hp[s]:
                above += 1
        out_rank[s] = 1 + above
    return 1 if k > 1 else 0
