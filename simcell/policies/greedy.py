"""`greedy`: one-step evaluation of every legal action (evaluate.py) with the cards in hand as
the cards of interest: what they still need is worth `need` more per unit. The best action is
taken or, with a temperature, drawn by softmax from the seat's policy stream, so identical bots
do not all chase the same card (heuristic.py does the choosing)."""

from __future__ import annotations

import numpy as np

from simcell.kernel.bits import lowest_bit
from simcell.vocabulary import N_RESOURCES
from simcell.kernel.jit import kernel_jit_inline
from simcell.policies.evaluate import add_card_need


@kernel_jit_inline
def greedy_interest(v, gt, ws, need):
    """need[resource] = what the cards in hand still take from personal stock; returns the
    cards of interest (the hand)."""
    for r in range(N_RESOURCES):
        need[r] = 0.0
    cards = v.hand
    while cards != 0:
        c = lowest_bit(cards)
        cards &= cards - np.int64(1)
        add_card_need(v, gt, ws, c, 1.0, need)
    return v.hand
