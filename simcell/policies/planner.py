"""`planner`: commits to target cards, from the hand and the Card Area, that give the most
worth per placement still needed and can be finished in the placements left; works out what
they still need (resources, the ER -> Golgi -> Exocytosis route, Cytoplasm, Detoxification) and
values actions by how much they close that gap (`target_focus` times the `need` worth), contests
the last free Golgi spot or budding location (`contest`), and claims goals by their expected
worth. Stateless: the targets are recomputed from the View at every decision, so play depends
on the observation alone. The archetypes of the registry are planners with some worths multiplied."""

from __future__ import annotations

import numpy as np

from simcell.kernel.bits import lowest_bit
from simcell.kernel.costs import slot_price
from simcell.vocabulary import ADDITIONAL_RESOURCE, ATP, N_RESOURCES
from simcell.kernel.jit import kernel_jit_inline
from simcell.policies.evaluate import (
    V_TARGETS,
    WS_SCORE,
    WS_TODO,
    WS_WORTH,
    add_card_need,
    placements_left,
)

MAX_TARGETS = 4


@kernel_jit_inline
def target_score(v, gt, ws, card, buy, left):
    """Worth per placement still needed (one more to buy it), or -1 if it cannot be finished
    in the `left` placements."""
    todo = ws[WS_TODO, card] + buy
    if todo > left:
        return -1.0
    return ws[WS_WORTH, card] / (todo + 1.0)


@kernel_jit_inline
def score_candidates(v, gt, ws):
    """ws[WS_SCORE, card] = target_score of each card choose_targets may pick (-1: it may not:
    an Additional Resource card, a Card Area card the seat cannot afford), once per decision."""
    left = placements_left(v, gt)
    cards = v.hand
    while cards != 0:
        c = lowest_bit(cards)
        cards &= cards - np.int64(1)
        ok = gt.card_type[c] != ADDITIONAL_RESOURCE
        ws[WS_SCORE, c] = target_score(v, gt, ws, c, 0.0, left) if ok else -1.0
    for slot in range(gt.n_slots):
        c = v.slot_card[slot]
        if c < 0:
            continue
        ok = (gt.card_type[c] != ADDITIONAL_RESOURCE
              and slot_price(gt, slot, v.discount) <= v.stock[v.seat, ATP])
        ws[WS_SCORE, c] = target_score(v, gt, ws, c, 1.0, left) if ok else -1.0


@kernel_jit_inline
def choose_targets(v, gt, params, ws):
    """Bit set of the target cards: the best `targets` cards of the hand and the Card Area
    (hand first, then slot order; the first of equal scores wins)."""
    k = max(0, min(int(params[V_TARGETS]), MAX_TARGETS))
    chosen = np.int64(0)
    if k == 0:
        return chosen
    score_candidates(v, gt, ws)
    for _ in range(k):
        best = -1
        best_score = 0.0
        cards = v.hand & ~chosen
        while cards != 0:
            c = lowest_bit(cards)
            cards &= cards - np.int64(1)
            if ws[WS_SCORE, c] > best_score:
                best, best_score = c, ws[WS_SCORE, c]
        for slot in range(gt.n_slots):
            c = v.slot_card[slot]
            if c < 0 or (chosen >> np.int64(c)) & 1:
                continue
            if ws[WS_SCORE, c] > best_score:
                best, best_score = c, ws[WS_SCORE, c]
        if best < 0:
            break
        chosen |= np.int64(1) << np.int64(best)
    return chosen


@kernel_jit_inline
def planner_interest(v, gt, params, ws, need):
    """need[resource] = what the targets still need; returns the cards of interest (targets
    and hand)."""
    targets = choose_targets(v, gt, params, ws)
    for r in range(N_RESOURCES):
        need[r] = 0.0
    cards = targets
    while cards != 0:
        c = lowest_bit(cards)
        cards &= cards - np.int64(1)
        add_card_need(v, gt, ws, c, 1.0, need)
    return targets | v.hand
