"""What a built-in policy may read (docs/rules.md §9): a `View` of the State that holds references
to the observable arrays only (no copy) and the observer's own hand as a number.

Hidden, and absent from the View: the deck order, the removed and unrevealed events and their
order, the undealt epigenetic cards, the cards other players kept at setup (their hands). Built-in
policies take a View, never the State, so they cannot read hidden information by accident; the
information-set tests (tests/test_policies.py) check it by permuting what is hidden.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcell.kernel.bits import popcount
from simcell.kernel.jit import kernel_jit_inline
from simcell.kernel.state import (
    G_DECK_N,
    G_DISCARD_N,
    G_DISCOUNT,
    G_EVENT_N,
    G_EVENT_NEXT,
    G_GREY_LEFT,
    G_MARKER,
    G_PHASE,
    G_ROUND,
    G_ROUND_HOLDER,
)


class View(NamedTuple):
    """A seat's observation. Per-seat arrays are indexed by seat; the rest as in State."""

    seat: int  # the observer
    hand: int  # bit set of the observer's cards in hand
    returned: int  # card id the observer returned at setup (-1 before)
    phase: int  # State PH_* phase
    round: int  # current round, 1-based (0 during setup)
    events_left: int  # events still in the event deck
    events_revealed: int  # bit set of revealed events (data positions)
    marker: int  # seat holding the First Player Marker
    round_holder: int  # seat that held it when this round's Phase 1 started
    grey_left: int  # grey flasks still in the grey flask area
    discount: int  # card_discount in force this round
    deck_size: int
    discard_size: int
    discard: np.ndarray  # int32[position] the discard pile (first discard_size entries)
    stock: np.ndarray  # int32[seat, resource]
    hp: np.ndarray  # int32[seat, source]
    hand_size: np.ndarray  # int32[seat]
    bought: np.ndarray  # int64[seat] cards bought from the Card Area
    completed: np.ndarray  # int64[seat]
    completed_by_type: np.ndarray  # int32[seat, completed type]
    epi: np.ndarray  # int32[seat] epigenetic card, -1 none
    yield_bonus: np.ndarray  # int32[seat, location]
    cost_discount: np.ndarray  # int32[seat, completed type]
    own_left: np.ndarray  # int32[seat] unplaced own flasks
    out: np.ndarray  # int32[seat]
    grey_round: np.ndarray  # int32[seat] grey flasks placed this round
    disks_free: np.ndarray  # int32[seat]
    markers_left: np.ndarray  # int32[seat]
    ves_owner: np.ndarray  # int32[organelle, budding index] seat, -1 empty
    ves_origin: np.ndarray  # int32[organelle, budding index]
    ves_load: np.ndarray  # int32[organelle, budding index]
    ves_golgi: np.ndarray  # int32[organelle, budding index]
    spot_occ: np.ndarray  # int32[spot] seat, -1 free
    slot_card: np.ndarray  # int32[slot] card id, -1 empty
    goals: np.ndarray  # int32[goal index] goal in play (data position)
    goal_mark: np.ndarray  # int32[goal index, seat]
    goal_nmark: np.ndarray  # int32[goal index]
    bonus_res: np.ndarray  # int32[location] unclaimed location_bonus resource, -1 none
    bonus_n: np.ndarray  # int32[location]
    supply: np.ndarray  # int32[resource] (meaningful with a limited supply)


@kernel_jit_inline
def make_view(st, seat):
    """The View of `seat` (fills State.workspace.hand_size, the one derived array)."""
    fill_hand_sizes(st)
    return view_of(st, seat)


@kernel_jit_inline
def fill_hand_sizes(st):
    """State.workspace.hand_size[s] = how many cards seat s holds (what the View shows of rivals' hands)."""
    for s in range(st.hand.shape[0]):
        st.workspace.hand_size[s] = popcount(st.hand[s])


@kernel_jit_inline
def view_of(st, seat):
    """The View of `seat`, with State.workspace.hand_size as last filled (make_view fills it first)."""
    revealed = np.int64(0)
    for j in range(st.g[G_EVENT_NEXT]):
        revealed |= np.int64(1) << np.int64(st.event_deck[j])
    return View(
        seat, st.hand[seat], st.returned[seat], st.g[G_PHASE], st.g[G_ROUND],
        st.g[G_EVENT_N] - st.g[G_EVENT_NEXT], revealed, st.g[G_MARKER], st.g[G_ROUND_HOLDER],
        st.g[G_GREY_LEFT], st.g[G_DISCOUNT], st.g[G_DECK_N], st.g[G_DISCARD_N], st.discard,
        st.stock, st.hp, st.workspace.hand_size, st.bought, st.completed, st.completed_by_type, st.epi,
        st.yield_bonus, st.discount, st.own_left, st.out, st.grey_round, st.disks_free,
        st.markers_left, st.ves_owner, st.ves_origin, st.ves_load, st.ves_golgi, st.spot_occ,
        st.slot_card, st.goals, st.goal_mark, st.goal_nmark, st.bonus_res, st.bonus_n, st.supply,
    )
