"""Determinization for search policies: a full game State consistent with one seat's
observation, built from the true State without using anything hidden from that seat.

The hidden cards (the deck, rivals' kept cards still in hand, the Detoxification cards removed
at two players) are pooled as a set and dealt back by a shuffle keyed by card id, so the result
depends on the observation and the key only, never on the true deck order, on which rival
holds which hidden card or on which Detoxification cards were removed; the same for the
unrevealed and set-aside events. The copy gets a seed of its own, so its future reshuffles and
policy draws are the search's, not the game's."""

from __future__ import annotations

import numpy as np

from simcell.kernel.bits import lowest_bit, popcount
from simcell.kernel.chance import keyed_shuffle, splitmix64
from simcell.vocabulary import DETOX
from simcell.kernel.jit import kernel_jit, kernel_jit_inline
from simcell.kernel.setup import set_policy_prefix
from simcell.kernel.state import (
    G_BLOCK,
    G_DECK_N,
    G_DETOX_REMOVED,
    G_EVENT_N,
    G_EVENT_NEXT,
    G_EVENTS_REMOVED,
    G_SEED,
    G_TRACE_ON,
)

CARDS_SALT = np.uint64(0xC3A5C85C97CB3127)
EVENTS_SALT = np.uint64(0xB492B66FBE98F273)
SEED_SALT = np.uint64(0x9AE16A3B2F90404F)


@kernel_jit_inline
def copy1(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@kernel_jit_inline
def copy2(dst, src):
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@kernel_jit
def copy_game(src, dst):
    """Copy every array the rules read or write from State src to dst (not the records-only
    counters, block aggregates, trace or policy workspaces)."""
    copy1(dst.g, src.g)
    copy2(dst.stock, src.stock)
    copy2(dst.hp, src.hp)
    copy1(dst.hand, src.hand)
    copy1(dst.dealt, src.dealt)
    copy1(dst.kept, src.kept)
    copy1(dst.bought, src.bought)
    copy1(dst.completed, src.completed)
    copy1(dst.returned, src.returned)
    copy2(dst.completed_by_type, src.completed_by_type)
    copy1(dst.own_left, src.own_left)
    copy1(dst.out, src.out)
    copy1(dst.grey_round, src.grey_round)
    copy1(dst.disks_free, src.disks_free)
    copy1(dst.markers_left, src.markers_left)
    copy1(dst.epi, src.epi)
    copy2(dst.yield_bonus, src.yield_bonus)
    copy2(dst.discount, src.discount)
    copy2(dst.ves_owner, src.ves_owner)
    copy2(dst.ves_origin, src.ves_origin)
    copy2(dst.ves_load, src.ves_load)
    copy2(dst.ves_golgi, src.ves_golgi)
    copy1(dst.spot_occ, src.spot_occ)
    copy1(dst.slot_card, src.slot_card)
    copy1(dst.deck, src.deck)
    copy1(dst.discard, src.discard)
    copy1(dst.event_deck, src.event_deck)
    copy1(dst.goals, src.goals)
    copy2(dst.goal_mark, src.goal_mark)
    copy1(dst.goal_nmark, src.goal_nmark)
    copy1(dst.bonus_res, src.bonus_res)
    copy1(dst.bonus_n, src.bonus_n)
    copy1(dst.supply, src.supply)
    copy2(dst.hp_round, src.hp_round)
    copy1(dst.first_player, src.first_player)
    copy1(dst.decisions, src.decisions)
    copy1(dst.seating.player, src.seating.player)
    copy1(dst.seating.policy, src.seating.policy)
    copy1(dst.seating.label, src.seating.label)
    copy2(dst.seating.params, src.seating.params)


@kernel_jit
def determinize(st, gt, seat, key, dst):
    """dst = a game consistent with seat's observation of st, the hidden part drawn by `key`."""
    copy_game(st, dst)
    dst.g[G_TRACE_ON] = 0
    dst.g[G_BLOCK] = 0
    dst.g[G_SEED] = np.int64(splitmix64(key ^ SEED_SALT) >> np.uint64(1))
    set_policy_prefix(dst, gt)
    # hidden cards: the deck, rivals' kept cards and the Detoxification cards removed at two
    # players (docs/rules.md §1; which ones is hidden, §9), as one set
    pool = dst.scratch
    n = 0
    deck_n = st.g[G_DECK_N]
    for i in range(deck_n):
        pool[n] = st.deck[i]
        n += 1
    for r in range(gt.players):
        if r == seat:
            continue
        hidden = st.hand[r] & ~st.bought[r]
        dst.hand[r] = st.hand[r] & ~hidden
        while hidden != 0:
            pool[n] = lowest_bit(hidden)
            hidden &= hidden - np.int64(1)
            n += 1
    removed = st.g[G_DETOX_REMOVED]
    n_removed = popcount(removed)
    while removed != 0:
        pool[n] = lowest_bit(removed)
        removed &= removed - np.int64(1)
        n += 1
    keyed_shuffle(splitmix64(key ^ CARDS_SALT), pool, n, dst.scratch_hash)
    # the first n_removed Detoxification cards of the shuffled pool are the copy's removed
    # ones; the rest, in order, go to the rivals' hands and the deck
    removed = np.int64(0)
    kept_n = 0
    for i in range(n):
        c = pool[i]
        if n_removed > 0 and gt.card_type[c] == DETOX:
            removed |= np.int64(1) << np.int64(c)
            n_removed -= 1
        else:
            pool[kept_n] = c
            kept_n += 1
    dst.g[G_DETOX_REMOVED] = removed
    j = 0
    for r in range(gt.players):
        if r == seat:
            continue
        for _ in range(popcount(st.hand[r] & ~st.bought[r])):
            dst.hand[r] |= np.int64(1) << np.int64(pool[j])
            j += 1
    for i in range(deck_n):
        dst.deck[i] = pool[j + i]
    # events: the unrevealed ones and those set aside, as one set
    nxt = st.g[G_EVENT_NEXT]
    n_ev = st.g[G_EVENT_N]
    removed_mask = st.g[G_EVENTS_REMOVED]
    m = 0
    removed = 0
    for pos in range(gt.n_events):
        if (removed_mask >> np.int64(gt.event_id[pos])) & 1:
            pool[m] = pos
            m += 1
            removed += 1
    for i in range(nxt, n_ev):
        pool[m] = st.event_deck[i]
        m += 1
    keyed_shuffle(splitmix64(key ^ EVENTS_SALT), pool, m, dst.scratch_hash)
    mask = np.int64(0)
    for i in range(removed):
        mask |= np.int64(1) << np.int64(gt.event_id[pool[i]])
    dst.g[G_EVENTS_REMOVED] = mask
    for i in range(nxt, n_ev):
        dst.event_deck[i] = pool[removed + i - nxt]
