"""What an action costs after the discounts in force, written once for the rules (reading the
State) and the heuristic evaluator (reading a View, whose arrays are the State's)."""

from __future__ import annotations

from simcell.kernel.jit import kernel_jit_inline


@kernel_jit_inline
def completion_atp(gt, discount, seat, card):
    """A card's completion ATP after the seat's epigenetic cost_discount, minimum 0 (`discount`:
    State.discount, a View's cost_discount: [seat, completed type])."""
    a = gt.card_atp[card] - discount[seat, gt.card_type[card]]
    return a if a > 0 else 0


@kernel_jit_inline
def slot_price(gt, slot, round_discount):
    """A Card Area slot's price after the round's card_discount, minimum 0."""
    a = gt.slot_prices[slot] - round_discount
    return a if a > 0 else 0
