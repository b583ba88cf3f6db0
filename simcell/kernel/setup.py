"""Setup (docs/rules.md §1): reset a State, the chance steps of setup, the setup decisions (the card
returned, the starting combination) and the end of setup."""

from __future__ import annotations

import numpy as np
from simcell.kernel.jit import kernel_jit, kernel_jit_inline

from simcell.kernel.chance import keyed_shuffle, stream_key, stream_prefix
from simcell.kernel.codes import code_combo, code_return
from simcell.vocabulary import (
    ADDITIONAL_RESOURCE,
    ATP,
    CHANCE_DECK_ORDER,
    CHANCE_DETOX_REMOVAL,
    CHANCE_EPIGENETIC_DEAL,
    CHANCE_EVENT_ORDER,
    CHANCE_EVENT_REMOVAL,
    CHANCE_GOAL_ORDER,
    CHANCE_POLICY,
    CHANCE_SETUP_SHUFFLE,
    DETOX,
    SRC_START,
)
from simcell.kernel.rounds import start_round
from simcell.kernel.state import (
    G_BLOCK,
    G_DEAL,
    G_DECK_N,
    G_DETOX_REMOVED,
    G_DISCARD_N,
    G_EVENT_N,
    G_EVENTS_REMOVED,
    G_MARKER,
    G_PHASE,
    G_POLICY_PREFIX,
    G_SEED,
    G_SETUP_SEAT,
    G_TO_MOVE,
    G_TRACE_ON,
    G_VISIBLE,
    NO_GOLGI,
    PH_COMBO,
    PH_RETURN,
)
from simcell.kernel.stock import gain, measure_peak, trace_shuffle


@kernel_jit_inline
def set_policy_prefix(st, gt):
    """Hash the policy streams' first four coordinates (seed, players, deal, CHANCE_POLICY)
    once per game, so a decision's key costs one hash step (dispatch.decision_key). Call it
    whenever G_SEED or G_DEAL changes."""
    st.g[G_POLICY_PREFIX] = np.int64(stream_prefix(st.g[G_SEED], gt.players, st.g[G_DEAL],
                                                   CHANCE_POLICY))


@kernel_jit
def reset_state(st, gt, seed, deal, trace_on, block=0):
    """Clear every array of the State for a new game (the block aggregates accumulate; the
    game's figures go to block row `block`)."""
    st.g[:] = 0
    st.g[G_BLOCK] = block
    st.g[G_SEED] = seed
    st.g[G_DEAL] = deal
    set_policy_prefix(st, gt)
    st.g[G_TRACE_ON] = 1 if trace_on else 0
    st.stock[:] = 0
    st.hp[:] = 0
    st.hand[:] = 0
    st.dealt[:] = 0
    st.kept[:] = 0
    st.bought[:] = 0
    st.completed[:] = 0
    st.returned[:] = -1
    st.completed_by_type[:] = 0
    st.own_left[:] = 0
    st.out[:] = 0
    st.grey_round[:] = 0
    st.disks_free[:] = gt.vesicles
    st.markers_left[:] = gt.markers
    st.epi[:] = -1
    st.yield_bonus[:] = 0
    st.discount[:] = 0
    st.ves_owner[:] = -1
    st.ves_origin[:] = 0
    st.ves_load[:] = 0
    st.ves_golgi[:] = NO_GOLGI
    st.spot_occ[:] = -1
    st.slot_card[:] = -1
    st.goals[:] = -1
    st.goal_mark[:] = 0
    st.goal_nmark[:] = 0
    st.bonus_res[:] = -1
    st.bonus_n[:] = 0
    for r in range(5):
        st.supply[r] = gt.supply[r]
    st.flows[:] = 0
    st.exhausted[:] = 0
    st.grey_total[:] = 0
    st.laureates[:] = 0
    st.laureates_holder[:] = 0
    st.markers_placed[:] = 0
    st.goal_round[:] = 0
    st.goal_order[:] = 0
    st.goal_paid[:] = 0
    st.ves_lost[:] = 0
    st.placements[:] = 0
    st.hp_round[:] = -1
    st.first_player[:] = -1
    st.peak[:] = 0
    st.shortfall[:] = 0
    st.decisions[:] = 0


@kernel_jit_inline
def _key(st, gt, purpose, index):
    return stream_key(st.g[G_SEED], gt.players, st.g[G_DEAL], purpose, index)


@kernel_jit
def _find(arr, n, value):
    for i in range(n):
        if arr[i] == value:
            return i
    return -1


@kernel_jit
def draw_card(st):
    """Take the top card of the deck (the deck is stored bottom first)."""
    n = st.g[G_DECK_N] - 1
    st.g[G_DECK_N] = n
    return st.deck[n]


@kernel_jit
def set_deck(st, ordered, n):
    """Make the deck the n ids in `ordered`, first = top."""
    for i in range(n):
        st.deck[n - 1 - i] = ordered[i]
    st.g[G_DECK_N] = n


@kernel_jit
def setup_game(st, gt):
    """Setup steps 1-2 (docs/rules.md §1): events, goals, the deck, the Card Area, the deal and
    the epigenetic cards; then the first `return` decision is due."""
    p = gt.players
    ids = st.scratch
    # 1. events: set aside the first r of the event_removal order; order the rest
    n_ev = gt.n_events
    for i in range(n_ev):
        ids[i] = gt.event_id[i]
    keyed_shuffle(_key(st, gt, CHANCE_EVENT_REMOVAL, 0), ids, n_ev, st.scratch_hash)
    trace_shuffle(st, CHANCE_EVENT_REMOVAL, 0, ids, n_ev)
    removed = np.int64(0)
    for i in range(gt.events_set_aside):
        removed |= np.int64(1) << np.int64(ids[i])
    st.g[G_EVENTS_REMOVED] = removed
    n_deck = n_ev - gt.events_set_aside
    for i in range(n_deck):
        ids[i] = ids[gt.events_set_aside + i]
    keyed_shuffle(_key(st, gt, CHANCE_EVENT_ORDER, 0), ids, n_deck, st.scratch_hash)
    trace_shuffle(st, CHANCE_EVENT_ORDER, 0, ids, n_deck)
    for i in range(n_deck):
        st.event_deck[i] = _find(gt.event_id, n_ev, ids[i])
    st.g[G_EVENT_N] = n_deck
    # goals: the first goals_revealed of the goal_order are in play
    for i in range(gt.n_goals):
        ids[i] = gt.goal_id[i]
    keyed_shuffle(_key(st, gt, CHANCE_GOAL_ORDER, 0), ids, gt.n_goals, st.scratch_hash)
    trace_shuffle(st, CHANCE_GOAL_ORDER, 0, ids, gt.n_goals)
    for gi in range(gt.goals_revealed):
        st.goals[gi] = _find(gt.goal_id, gt.n_goals, ids[gi])
    # two-player Detoxification removal
    detox_removed = np.int64(0)
    if gt.detox_removed > 0:
        n = 0
        for c in range(gt.n_ids):
            if gt.card_in_game[c] and gt.card_type[c] == DETOX:
                ids[n] = c
                n += 1
        keyed_shuffle(_key(st, gt, CHANCE_DETOX_REMOVAL, 0), ids, n, st.scratch_hash)
        trace_shuffle(st, CHANCE_DETOX_REMOVAL, 0, ids, n)
        for i in range(min(gt.detox_removed, n)):
            detox_removed |= np.int64(1) << np.int64(ids[i])
    st.g[G_DETOX_REMOVED] = detox_removed
    # the Cell Component deck
    n = 0
    for c in range(gt.n_ids):
        if gt.card_in_game[c] and not (detox_removed >> np.int64(c)) & 1:
            ids[n] = c
            n += 1
    keyed_shuffle(_key(st, gt, CHANCE_DECK_ORDER, 0), ids, n, st.scratch_hash)
    trace_shuffle(st, CHANCE_DECK_ORDER, 0, ids, n)
    set_deck(st, ids, n)
    for slot in range(gt.n_slots):
        if st.g[G_DECK_N] > 0:
            st.slot_card[slot] = draw_card(st)
            st.g[G_VISIBLE] |= np.int64(1) << np.int64(st.slot_card[slot])
    for seat in range(p):
        for _ in range(gt.cards_dealt):
            c = draw_card(st)
            bit = np.int64(1) << np.int64(c)
            st.hand[seat] |= bit
            st.dealt[seat] |= bit
            st.g[G_VISIBLE] |= bit
    st.g[G_DISCARD_N] = 0
    # 2. epigenetic cards, face up, one per seat
    if gt.epigenetic:
        for i in range(gt.n_epi):
            ids[i] = gt.epi_id[i]
        keyed_shuffle(_key(st, gt, CHANCE_EPIGENETIC_DEAL, 0), ids, gt.n_epi, st.scratch_hash)
        trace_shuffle(st, CHANCE_EPIGENETIC_DEAL, 0, ids, gt.n_epi)
        for seat in range(p):
            k = _find(gt.epi_id, gt.n_epi, ids[seat])
            st.epi[seat] = k
            st.disks_free[seat] += gt.epi_vesicles[k]
            st.markers_left[seat] += gt.epi_markers[k]
            for loc in range(gt.n_loc):
                st.yield_bonus[seat, loc] = gt.epi_yield[k, loc]
            for t in range(6):
                st.discount[seat, t] = gt.epi_discount[k, t]
    st.g[G_MARKER] = 0
    st.g[G_PHASE] = PH_RETURN
    st.g[G_SETUP_SEAT] = 0
    st.g[G_TO_MOVE] = 0


@kernel_jit
def setup_legal(st, gt):
    """Legal codes of the setup decision due into st.workspace.legal (setup_listing)."""
    return setup_listing(st, gt, st.workspace.legal)


@kernel_jit
def setup_listing(st, gt, legal):
    """Legal codes of the setup decision due (return: the dealt card ids; combo: every index)
    into `legal`; returns how many."""
    seat = st.g[G_TO_MOVE]
    n = 0
    if st.g[G_PHASE] == PH_RETURN:
        for c in range(gt.n_ids):
            if (st.hand[seat] >> np.int64(c)) & 1:
                legal[n] = code_return(c)
                n += 1
    else:
        for i in range(gt.combos.shape[0]):
            legal[n] = code_combo(i)
            n += 1
    return n


@kernel_jit
def apply_return(st, gt, card):
    """Setup step 3 for the seat to move; after the last seat, steps 3 (shuffle) and 4."""
    seat = st.g[G_TO_MOVE]
    bit = np.int64(1) << np.int64(card)
    st.hand[seat] &= ~bit
    st.kept[seat] = st.dealt[seat] & ~bit
    st.returned[seat] = card
    for c in range(gt.n_ids):
        if (st.kept[seat] >> np.int64(c)) & 1:
            st.tallies.acquired[st.g[G_BLOCK], c, 0] += 1
    if seat + 1 < gt.players:
        st.g[G_TO_MOVE] = seat + 1
        return
    # every seat has returned a card: they join the deck, which is shuffled once
    ids = st.scratch
    n = st.g[G_DECK_N]
    for i in range(n):
        ids[i] = st.deck[n - 1 - i]
    for s in range(gt.players):
        ids[n] = st.returned[s]
        n += 1
    keyed_shuffle(_key(st, gt, CHANCE_SETUP_SHUFFLE, 0), ids, n, st.scratch_hash)
    trace_shuffle(st, CHANCE_SETUP_SHUFFLE, 0, ids, n)
    set_deck(st, ids, n)
    # 4. starting ATP (and starting HP) by seat
    for s in range(gt.players):
        gain(st, gt, s, ATP, gt.starting_atp[s], gt.fr_setup_atp)
        st.hp[s, SRC_START] += gt.starting_hp[s]
    st.g[G_PHASE] = PH_COMBO
    st.g[G_TO_MOVE] = 0


@kernel_jit
def apply_combo(st, gt, combo):
    """Setup step 5 for the seat to move; after the last seat, step 6 and round 1."""
    seat = st.g[G_TO_MOVE]
    gain(st, gt, seat, gt.combos[combo, 0], 1, gt.fr_pick)
    gain(st, gt, seat, gt.combos[combo, 1], 1, gt.fr_pick)
    if seat + 1 < gt.players:
        st.g[G_TO_MOVE] = seat + 1
        return
    # 6. kept Additional Resource cards resolve, then start_bonus, seat by seat
    for s in range(gt.players):
        for c in range(gt.n_ids):
            if (st.hand[s] >> np.int64(c)) & 1 and gt.card_type[c] == ADDITIONAL_RESOURCE:
                resolve_additional_resource(st, gt, s, c)
        k = st.epi[s]
        if k >= 0:
            for r in range(5):
                gain(st, gt, s, r, gt.epi_start[k, r], gt.fr_start_bonus)
    measure_peak(st, gt)
    start_round(st, gt)


@kernel_jit
def resolve_additional_resource(st, gt, seat, card):
    """An Additional Resource card entering a hand: gain, then to the discard pile."""
    st.hand[seat] &= ~(np.int64(1) << np.int64(card))
    for r in range(5):
        gain(st, gt, seat, r, gt.card_gain[card, r], gt.fr_additional)
    n = st.g[G_DISCARD_N]
    st.discard[n] = card
    st.g[G_DISCARD_N] = n + 1
