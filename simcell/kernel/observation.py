"""What a player may know (docs/rules.md §9), as one flat int64 vector: the only view of the game a
policy is handed. Hidden: the deck order, the removed and unrevealed events and their order,
the undealt epigenetic cards, and the cards other players kept at setup.

Layout (`observation_layout` gives each block's offset; P players, L locations, S slots,
K spots, B = max budding, E events, G goals in play):
  header      [round, events left, to_move, marker, grey flasks left, card discount, deck size,
               observer seat, round holder]
  events      E: the round in which each event (data order) was revealed, 0 if not (yet)
  bonuses     2L: per location, the active (unclaimed) location_bonus resource (-1) and amount
  goals       G: goal (data position) by goal index;  G*P: markers (1/0) by goal and seat
  card area   S: card id per slot (-1);  S: effective price per slot
  discard     1: bit set of the card ids in the discard pile
  spots       K: seat occupying each spot (-1)
  vesicles    3*B*4: per organelle and budding index: owner (-1), origin, ER load, Golgi resource
  players     P*(5 + 10 + 12): per seat: stock (5), HP by source (10), completed mask,
              epigenetic card (-1), hand size, bought mask, unplaced own flasks, own flasks
              exhausted this round, grey flasks placed this round, out, goal markers left,
              free disks, laureates holder at round start (1/0), exhausted over the game
  own         2: the observer's hand mask and the card it returned at setup (-1)
"""

from __future__ import annotations

import numpy as np

from simcell.kernel.bits import popcount
from simcell.kernel.jit import kernel_jit
from simcell.kernel.costs import slot_price
from simcell.kernel.state import (
    G_DECK_N,
    G_DISCARD_N,
    G_DISCOUNT,
    G_EVENT_N,
    G_EVENT_NEXT,
    G_GREY_LEFT,
    G_MARKER,
    G_ROUND,
    G_ROUND_HOLDER,
    G_TO_MOVE,
)

HEADER = 9
PER_PLAYER = 5 + 10 + 12


def observation_size(gt) -> int:
    """Length of the observation vector for these tables."""
    p = gt.players
    return (
        HEADER + gt.n_events + 2 * gt.n_loc + gt.goals_revealed * (1 + p) + 2 * gt.n_slots + 1
        + gt.n_spots + 3 * gt.max_budding * 4 + p * PER_PLAYER + 2
    )


@kernel_jit
def observe(st, gt, seat, out):
    """Write seat's observation into out[:observation_size(gt)]; returns its length."""
    p = gt.players
    i = 0
    out[0] = st.g[G_ROUND]
    out[1] = st.g[G_EVENT_N] - st.g[G_EVENT_NEXT]
    out[2] = st.g[G_TO_MOVE]
    out[3] = st.g[G_MARKER]
    out[4] = st.g[G_GREY_LEFT]
    out[5] = st.g[G_DISCOUNT]
    out[6] = st.g[G_DECK_N]
    out[7] = seat
    out[8] = st.g[G_ROUND_HOLDER]
    i = HEADER
    for e in range(gt.n_events):
        out[i + e] = 0
    for j in range(st.g[G_EVENT_NEXT]):  # revealed in rounds 1, 2, ...
        out[i + st.event_deck[j]] = j + 1
    i += gt.n_events
    for loc in range(gt.n_loc):
        out[i] = st.bonus_res[loc]
        out[i + 1] = st.bonus_n[loc]
        i += 2
    for gi in range(gt.goals_revealed):
        out[i] = st.goals[gi]
        i += 1
    for gi in range(gt.goals_revealed):
        for s in range(p):
            out[i] = st.goal_mark[gi, s]
            i += 1
    for slot in range(gt.n_slots):
        out[i] = st.slot_card[slot]
        out[i + gt.n_slots] = slot_price(gt, slot, st.g[G_DISCOUNT])
        i += 1
    i += gt.n_slots
    discard = np.int64(0)
    for j in range(st.g[G_DISCARD_N]):
        discard |= np.int64(1) << np.int64(st.discard[j])
    out[i] = discard
    i += 1
    for k in range(gt.n_spots):
        out[i] = st.spot_occ[k]
        i += 1
    for org in range(3):
        for b in range(gt.max_budding):
            owner = st.ves_owner[org, b]
            out[i] = owner
            out[i + 1] = st.ves_origin[org, b] if owner >= 0 else 0
            out[i + 2] = st.ves_load[org, b] if owner >= 0 else 0
            out[i + 3] = st.ves_golgi[org, b] if owner >= 0 else -1
            i += 4
    for s in range(p):
        for r in range(5):
            out[i] = st.stock[s, r]
            i += 1
        for k in range(10):
            out[i] = st.hp[s, k]
            i += 1
        placed_own = 0
        for k in range(gt.n_spots):
            if st.spot_occ[k] == s:
                placed_own += 1
        placed_own -= st.grey_round[s]
        out[i] = st.completed[s]
        out[i + 1] = st.epi[s]
        out[i + 2] = popcount(st.hand[s])
        out[i + 3] = st.bought[s]
        out[i + 4] = st.own_left[s]
        out[i + 5] = gt.flasks - st.own_left[s] - placed_own
        out[i + 6] = st.grey_round[s]
        out[i + 7] = st.out[s]
        out[i + 8] = st.markers_left[s]
        out[i + 9] = st.disks_free[s]
        out[i + 10] = 1 if st.g[G_ROUND_HOLDER] == s else 0
        out[i + 11] = st.exhausted[s]
        i += 12
    out[i] = st.hand[seat]
    out[i + 1] = st.returned[seat]
    return i + 2
