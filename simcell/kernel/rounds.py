"""Rounds (docs/rules.md §2): starting a round, passing the turn in Phase 1, Phase 2 (events and the
Card Area refresh) and the end of the game."""

from __future__ import annotations

import numpy as np

from simcell.kernel.jit import kernel_jit, kernel_jit_inline

from simcell.kernel.chance import keyed_shuffle, stream_key
from simcell.vocabulary import (
    CHANCE_RESHUFFLE,
    COND_COMPLETED_AT_LEAST,
    COND_STOCK_AT_LEAST,
    COND_STOCK_AT_MOST,
    EV_ALL_GAIN,
    EV_CARD_DISCOUNT,
    EV_DISCARD_DOWN,
    EV_HP_IF,
    EV_LOCATION_BONUS,
    MACROMOLECULES,
    PO_CLOCKWISE,
    PO_SNAKE_PASS,
    PO_SNAKE_ROUND,
)
from simcell.kernel.costs import slot_price
from simcell.kernel.scoring import completed_in, end_game
from simcell.kernel.state import (
    G_DEAL,
    G_DECK_N,
    G_DIRECTION,
    G_DISCARD_N,
    G_DISCOUNT,
    G_EVENT_NEXT,
    G_GREY_LEFT,
    G_MARKER,
    G_PHASE,
    G_RESHUFFLES,
    G_ROUND,
    G_ROUND_HOLDER,
    G_SEED,
    G_BLOCK,
    G_PICKS,
    G_TO_MOVE,
    G_VISIBLE,
    PH_PLACE,
)
from simcell.kernel.stock import add_event_hp, gain, measure_peak, spend, total_hp, trace_shuffle


@kernel_jit
def start_round(st, gt):
    """Phase 1 begins: flasks back in hand, spots free, the marker holder moves first (with
    placement_order = snake_round, in an even round the seat before the holder moves first and
    the order runs backwards)."""
    st.g[G_ROUND] += 1
    r = st.g[G_ROUND]
    for s in range(gt.players):
        st.own_left[s] = gt.flasks
        st.out[s] = 0
        st.grey_round[s] = 0
    st.g[G_GREY_LEFT] = gt.grey_flasks
    st.spot_occ[:] = -1
    holder = st.g[G_MARKER]
    st.g[G_ROUND_HOLDER] = holder
    st.first_player[r - 1] = holder
    st.g[G_TO_MOVE] = holder
    st.g[G_DIRECTION] = 1
    if gt.placement_order == PO_SNAKE_ROUND and r % 2 == 0:
        st.g[G_DIRECTION] = -1
        st.g[G_TO_MOVE] = holder - 1 if holder > 0 else gt.players - 1
    st.g[G_PHASE] = PH_PLACE
    st.g[G_PICKS] = 0
    b = st.g[G_BLOCK]
    for slot in range(gt.n_slots):
        c = st.slot_card[slot]
        if c >= 0:
            st.tallies.offered[b, c, slot, slot_price(gt, slot, st.g[G_DISCOUNT])] += 1


@kernel_jit_inline
def advance_turn(st, gt):
    """After a Phase 1 action: the next seat not yet out moves (placement_order: clockwise and
    snake_round step round the table, snake_pass walks it and back); when everyone is out,
    Phase 2 runs (or, after the final round, the game is scored)."""
    if gt.placement_order == PO_SNAKE_PASS:
        if next_on_snake_pass(st, gt):
            return
    elif gt.placement_order == PO_CLOCKWISE or st.g[G_DIRECTION] > 0:
        p = gt.players
        nxt = st.g[G_TO_MOVE]
        for _ in range(p):
            nxt = nxt + 1 if nxt + 1 < p else 0  # (seat + step) % p without a division per turn
            if st.out[nxt] == 0:
                st.g[G_TO_MOVE] = nxt
                return
    else:  # a snake_round round walking backwards
        p = gt.players
        nxt = st.g[G_TO_MOVE]
        for _ in range(p):
            nxt = nxt - 1 if nxt > 0 else p - 1
            if st.out[nxt] == 0:
                st.g[G_TO_MOVE] = nxt
                return
    end_phase_one(st, gt)


@kernel_jit
def next_on_snake_pass(st, gt):
    """snake_pass: the seat after the one to move along the round's walk (position k = seats
    from the round's first player, k = 0 .. P - 1 and back, the end seat twice in a row), not
    out; False when every seat is out."""
    p = gt.players
    holder = st.g[G_ROUND_HOLDER]
    pos = st.g[G_TO_MOVE] - holder
    if pos < 0:
        pos += p
    d = st.g[G_DIRECTION]
    for _ in range(2 * p):
        pos += d
        if pos >= p or pos < 0:  # the pass round the table is over: the next one goes back
            d = -d
            pos += d
            st.g[G_DIRECTION] = d
        seat = holder + pos
        if seat >= p:
            seat -= p
        if st.out[seat] == 0:
            st.g[G_TO_MOVE] = seat
            return True
    return False


@kernel_jit
def end_phase_one(st, gt):
    """Everyone is out: Phase 2 and the next round, or after the final round the scoring."""
    p = gt.players
    r = st.g[G_ROUND]
    last = r >= gt.rounds
    if not last:
        phase_two(st, gt)
    for s in range(p):
        st.hp_round[s, r - 1] = total_hp(st, s)
    if last:
        end_game(st, gt)
    else:
        start_round(st, gt)


@kernel_jit
def phase_two(st, gt):
    """End the round's effects, reveal and resolve the next event, refresh the Card Area, and
    with turn_order = rotate pass the marker. (Flasks are retrieved and grey flasks returned
    by start_round, which always follows.)"""
    st.bonus_res[:] = -1
    st.bonus_n[:] = 0
    st.g[G_DISCOUNT] = 0
    e = st.event_deck[st.g[G_EVENT_NEXT]]
    st.g[G_EVENT_NEXT] += 1
    resolve_event(st, gt, e)
    measure_peak(st, gt)
    refresh_card_area(st, gt)
    if gt.rotate:
        st.g[G_MARKER] = (st.g[G_MARKER] + 1) % gt.players


@kernel_jit
def resolve_event(st, gt, e):
    """Resolve the effects of event e (data position) in listed order (docs/rules.md §6)."""
    p = gt.players
    holder = st.g[G_MARKER]
    for j in range(gt.ev_first[e], gt.ev_first[e] + gt.ev_count[e]):
        kind = gt.eff_kind[j]
        if kind == EV_LOCATION_BONUS:
            st.bonus_res[gt.eff_loc[j]] = gt.eff_res[j]
            st.bonus_n[gt.eff_loc[j]] = gt.eff_n[j]
        elif kind == EV_ALL_GAIN:
            for i in range(p):
                s = (holder + i) % p
                gain(st, gt, s, gt.eff_res[j], gt.eff_n[j], gt.fr_event)
        elif kind == EV_CARD_DISCOUNT:
            st.g[G_DISCOUNT] = gt.eff_n[j]
        elif kind == EV_DISCARD_DOWN:
            for s in range(p):
                for r in range(len(MACROMOLECULES)):  # mRNA, Protein, Carbohydrate, Lipid
                    excess = st.stock[s, r] - gt.eff_limit[j]
                    if excess > 0:
                        spend(st, s, r, excess, gt.fr_discard)
        elif kind == EV_HP_IF:
            cond = gt.eff_cond[j]
            for s in range(p):
                met = False
                if cond == COND_STOCK_AT_LEAST:
                    met = st.stock[s, gt.eff_res[j]] >= gt.eff_m[j]
                elif cond == COND_STOCK_AT_MOST:
                    met = st.stock[s, gt.eff_res[j]] <= gt.eff_m[j]
                elif cond == COND_COMPLETED_AT_LEAST:
                    met = completed_in(st.completed_by_type, s, gt.eff_types[j]) >= gt.eff_m[j]
                if met:
                    add_event_hp(st, s, gt.eff_n[j])


@kernel_jit
def refresh_card_area(st, gt):
    """Discard slot 0 if it holds a card, slide left keeping order, fill left to right from the
    deck, reshuffling the whole discard pile only when a card must be drawn from an empty deck."""
    n_slots = gt.n_slots
    if st.slot_card[0] >= 0:
        st.tallies.discarded[st.g[G_BLOCK], st.slot_card[0]] += 1
        n = st.g[G_DISCARD_N]
        st.discard[n] = st.slot_card[0]
        st.g[G_DISCARD_N] = n + 1
        st.slot_card[0] = -1
    k = 0
    for i in range(n_slots):
        c = st.slot_card[i]
        if c >= 0:
            st.slot_card[i] = -1
            st.slot_card[k] = c
            k += 1
    for i in range(k, n_slots):
        if st.g[G_DECK_N] == 0:
            nd = st.g[G_DISCARD_N]
            if nd == 0:
                return
            reshuffle(st, gt)
        n = st.g[G_DECK_N] - 1
        st.g[G_DECK_N] = n
        st.slot_card[i] = st.deck[n]
        st.g[G_VISIBLE] |= np.int64(1) << np.int64(st.deck[n])


@kernel_jit
def reshuffle(st, gt):
    """The whole discard pile becomes the deck, shuffled by the i-th reshuffle stream."""
    st.g[G_RESHUFFLES] += 1
    i = st.g[G_RESHUFFLES]
    n = st.g[G_DISCARD_N]
    ids = st.scratch
    for j in range(n):
        ids[j] = st.discard[j]
    key = stream_key(st.g[G_SEED], gt.players, st.g[G_DEAL], CHANCE_RESHUFFLE, i)
    keyed_shuffle(key, ids, n, st.scratch_hash)
    trace_shuffle(st, CHANCE_RESHUFFLE, i, ids, n)
    for j in range(n):
        st.deck[n - 1 - j] = ids[j]
    st.g[G_DECK_N] = n
    st.g[G_DISCARD_N] = 0

