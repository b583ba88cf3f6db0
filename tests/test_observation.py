"""The observation (docs/rules.md §9): what a player may know, and nothing else. Permuting what §9
calls hidden (the deck order, the removed and unrevealed events and their order, the cards other
players kept at setup) never changes it; changing anything public or the observer's own hand
does."""

from __future__ import annotations

import random

import numpy as np

from simcell.config.load import load_default_game
from simcell.kernel.actions import apply_phase_one
from simcell.kernel.codes import code_p1
from simcell.kernel.legal import phase_one_legal
from simcell.kernel.observation import observation_size, observe
from simcell.kernel.setup import apply_combo, apply_return, reset_state, setup_game, setup_legal
from simcell.kernel.state import (
    G_DECK_N,
    G_EVENT_N,
    G_EVENT_NEXT,
    G_PHASE,
    G_TO_MOVE,
    PH_COMBO,
    PH_OVER,
    PH_RETURN,
    new_state,
)
from simcell.runner.games import tables_for
from tests.support.stepping import copy_state


def _observe(st, gt, seat):
    out = np.zeros(observation_size(gt), np.int64)
    n = observe(st, gt, seat, out)
    assert n == len(out)
    return out


def _hide_shuffles(st, gt, seat, rng: random.Random):
    """A state differing from st only in what `seat` cannot see."""
    other = copy_state(st)
    n = int(other.g[G_DECK_N])
    deck = list(other.deck[:n])
    rng.shuffle(deck)
    other.deck[:n] = deck
    nxt, n_ev = int(other.g[G_EVENT_NEXT]), int(other.g[G_EVENT_N])
    unrevealed = list(other.event_deck[nxt:n_ev])
    in_deck = set(int(e) for e in other.event_deck[:n_ev])
    removed = [e for e in range(gt.n_events) if e not in in_deck]
    if unrevealed and removed and rng.random() < 0.5:  # a set-aside event swaps in
        unrevealed[rng.randrange(len(unrevealed))] = removed[0]
    rng.shuffle(unrevealed)
    other.event_deck[nxt:n_ev] = unrevealed
    # a card another player kept at setup (still in hand, never bought) swaps with a deck card
    for s in range(gt.players):
        if s == seat or n == 0:
            continue
        hidden = int(other.hand[s]) & int(other.kept[s]) & ~int(other.bought[s])
        if hidden:
            c = next(i for i in range(64) if hidden >> i & 1)
            j = rng.randrange(n)
            d = int(other.deck[j])
            other.hand[s] = (int(other.hand[s]) & ~(1 << c)) | (1 << d)
            other.kept[s] = (int(other.kept[s]) & ~(1 << c)) | (1 << d)
            other.dealt[s] = (int(other.dealt[s]) & ~(1 << c)) | (1 << d)
            other.deck[j] = c
            break
    return other


def _states(players: int, games: int, seed: int):
    """Yield (state, tables) at random decision points of random games."""
    game = load_default_game()
    gt = tables_for(game, players)
    rng = random.Random(seed)
    st = new_state(gt, 0)
    for g in range(games):
        reset_state(st, gt, seed, g, False, 0)
        setup_game(st, gt)
        while st.g[G_PHASE] != PH_OVER:
            phase = st.g[G_PHASE]
            n = setup_legal(st, gt) if phase in (PH_RETURN, PH_COMBO) else phase_one_legal(st, gt)
            if rng.random() < 0.05:
                yield st, gt
            code = int(st.workspace.legal[rng.randrange(n)])
            if phase == PH_RETURN:
                apply_return(st, gt, code_p1(code))
            elif phase == PH_COMBO:
                apply_combo(st, gt, code_p1(code))
            else:
                apply_phase_one(st, gt, code)


def test_hidden_information_never_changes_the_observation() -> None:
    rng = random.Random(5)
    checked = 0
    for players in (2, 3, 5):
        for st, gt in _states(players, 12, 7 + players):
            seat = int(st.g[G_TO_MOVE])
            before = _observe(st, gt, seat)
            for _ in range(3):
                other = _hide_shuffles(st, gt, seat, rng)
                assert np.array_equal(_observe(other, gt, seat), before)
            checked += 1
    assert checked > 100


def test_public_and_own_information_changes_the_observation() -> None:
    changed = 0
    for st, gt in _states(4, 3, 3):
        seat = int(st.g[G_TO_MOVE])
        rival = (seat + 1) % gt.players
        before = _observe(st, gt, seat)
        for mutate in (
            lambda s, seat, rival: s.stock.__setitem__((rival, 4), s.stock[rival, 4] + 1),
            lambda s, seat, rival: s.hp.__setitem__((rival, 0), s.hp[rival, 0] + 1),
            lambda s, seat, rival: s.hand.__setitem__(seat, int(s.hand[seat]) ^ (1 << 42)),
            lambda s, seat, rival: s.slot_card.__setitem__(0, (int(s.slot_card[0]) + 1) % 43),
            lambda s, seat, rival: s.ves_load.__setitem__((0, 0), s.ves_load[0, 0] + 1)
            if s.ves_owner[0, 0] >= 0 else s.ves_owner.__setitem__((0, 0), rival),
        ):
            other = copy_state(st)
            mutate(other, seat, rival)
            assert not np.array_equal(_observe(other, gt, seat), before)
            changed += 1
    assert changed > 10
