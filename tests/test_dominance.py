"""A better card is never a worse card to the bots, exactly (no statistics): over many random
deals and game states at 2-5 players and under every built-in heuristic policy (greedy, the
planner, each archetype),

- of two dealt cards where one dominates the other (same type and route, at least the HP, at
  most the ATP and at most every resource), the seat never keeps the dominated one and hands
  back the other, whether the pair is in the shipped set or made by improving one dealt card;
- when a card's HP (or a receptor's bonus) rises or its ATP or a resource falls, each worth the
  bot puts on that card does not fall: keeping it, buying it, choosing it as a target, loading
  and moving a vesicle for it, completing it (values worked out on the same state with the card
  set before and after the change).
"""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np
import pytest

from simcell.config.load import load_default_game
from simcell.kernel.jit import kernel_jit
from simcell.kernel.state import G_PHASE, G_ROUND, G_TO_MOVE, PH_RETURN
from simcell.policies.evaluate import (
    WS_SCORE,
    WS_STAGE,
    WS_WORTH,
    best_er_value,
    best_golgi_value,
    keep_value,
)
from simcell.policies.heuristic import evaluator_context
from simcell.policies.planner import score_candidates
from simcell.policies.registry import ARCHETYPES, KERNEL_PLANNER
from simcell.policies.values import card_area_value, completion_value
from simcell.policies.view import make_view
from simcell.runner.fields import homogeneous
from simcell.runner.games import tables_for
from simcell.vocabulary import (
    ACT_RETURN,
    CARD_TYPES,
    CP_ER_LOAD,
    CP_ORIGIN,
    FIXED_ROWS,
    LOCATION_ACTIONS,
    MAX_CARDS,
    decode_action,
)
from tests.support.stepping import copy_state, game_in_progress, next_decision

POLICIES = ("greedy", "planner") + tuple(a for a in ARCHETYPES if a != "balanced")
COUNTS = (2, 3, 4, 5)
VALUATIONS = ("keep", "buy", "target", "load", "golgi", "complete")
COSTS = ("atp", "protein", "carb", "lipid")


def dominates(a, b) -> bool:
    """Card a is at least as good as card b in every figure, on the same route."""
    return (a.type == b.type and a.golgi == b.golgi and a.type != "additional_resource"
            and a.hp >= b.hp and a.bonus_per_match >= b.bonus_per_match
            and all(getattr(a, f) <= getattr(b, f) for f in COSTS))


def better_versions(card):
    """The card one step better in each figure it has: +1 HP (+1 bonus for a receptor), one
    less ATP and one less of each resource it costs."""
    out = [("hp+1", dataclasses.replace(card, hp=card.hp + 1))]
    if card.bonus_per_match:
        out.append(("bonus+1", dataclasses.replace(card, bonus_per_match=card.bonus_per_match + 1)))
    for f in COSTS:
        if getattr(card, f) >= 1:
            out.append((f"{f}-1", dataclasses.replace(card, **{f: getattr(card, f) - 1})))
    return out


def with_card(game, card):
    return dataclasses.replace(game, cards=tuple(card if c.id == card.id else c for c in game.cards))


@cache
def _base():
    return load_default_game()


@kernel_jit
def card_valuations(st, gt, seat, card, slot, loc_area, loc_done, out, ws, need, goal_bonus,
                    fixed):
    """Each worth the seat to move's policy puts on `card` (VALUATIONS order into out; NaN where
    it puts none): the workspace and targets of the decision filled as the turn loop fills
    them (heuristic.evaluator_context)."""
    for i in range(out.shape[0]):
        out[i] = np.nan
    v = make_view(st, seat)
    params = st.seating.params[seat]
    plan = st.seating.policy[seat] == KERNEL_PLANNER
    ev = evaluator_context(v, gt, params, plan, ws, need, goal_bonus, fixed)
    out[0] = keep_value(v, gt, params, ws, card, plan)
    if slot >= 0:
        out[1] = card_area_value(ev, gt, loc_area, slot)
    if plan:
        score_candidates(v, gt, ws)
        out[2] = ws[WS_SCORE, card]
    if (gt.vesicle_type_mask >> np.int64(card)) & 1:
        # the worth of a vesicle for it, as if none served it yet (a cheaper card may be served
        # already by a vesicle that served the dearer one only in part)
        stage = ws[WS_STAGE, card]
        ws[WS_STAGE, card] = 0.0
        bit = np.int64(1) << np.int64(card)
        org = gt.card_plan[card, CP_ORIGIN]
        load = gt.card_plan[card, CP_ER_LOAD]
        out[3] = best_er_value(v, gt, params, ws, org, load, bit)
        out[4] = best_golgi_value(v, gt, params, ws, org, load, gt.card_golgi[card], bit)
        ws[WS_STAGE, card] = stage
    out[5] = completion_value(ev, gt, loc_done, card, gt.loc_action[loc_done])
    return ws[WS_WORTH, card]


def _locations(gt):
    actions = [LOCATION_ACTIONS[int(a)] for a in gt.loc_action]
    return {a: actions.index(a) for a in set(actions)}


def valuations(st, gt, card) -> np.ndarray:
    seat = int(st.g[G_TO_MOVE])
    locs = _locations(gt)
    t = CARD_TYPES[int(gt.card_type[card])]
    done = locs["enzyme_synthesis" if t == "enzyme" else "detoxification" if t == "detox"
                else "exocytosis"]
    slots = [i for i, c in enumerate(st.slot_card) if c == card]
    out = np.zeros(len(VALUATIONS))
    card_valuations(copy_state(st), gt, seat, card, slots[0] if slots else -1, locs["card_area"],
                    done, out, np.zeros((4, MAX_CARDS)), np.zeros(8), np.zeros(8),
                    np.zeros(FIXED_ROWS))
    return out


def visible_cards(st) -> list[int]:
    seat = int(st.g[G_TO_MOVE])
    cards = {c for c in range(64) if int(st.hand[seat]) >> c & 1}
    cards |= {int(c) for c in st.slot_card if c >= 0}
    base = _base()
    return sorted(c for c in cards if base.cards[c].type != "additional_resource")


def _states(players, policy, games, per_game, seed):
    """Game states before random policy decisions of `policy` games (setup and play)."""
    rng = np.random.default_rng(seed)
    seating = homogeneous(policy, players)
    for g in range(games):
        for k in sorted(rng.choice(60 * players, per_game, replace=False)):
            got = game_in_progress(_base(), players, seed, g, seating, int(k))
            if got is not None:
                yield got


@pytest.mark.parametrize("players", COUNTS)
def test_a_better_card_is_never_worth_less_in_any_valuation(players) -> None:
    base = _base()
    checked = {v: 0 for v in VALUATIONS}
    for policy in POLICIES:
        for st, gt in _states(players, policy, 6, 5, 101 + players):
            for card in visible_cards(st):
                before = valuations(st, gt, card)
                for change, better in better_versions(base.cards[card]):
                    gt2 = tables_for(with_card(base, better), players)
                    after = valuations(st, gt2, card)
                    for i, name in enumerate(VALUATIONS):
                        if np.isnan(before[i]):
                            continue
                        assert after[i] >= before[i], (
                            f"{players}p {policy}: {base.cards[card].name} {change} lowers its "
                            f"{name} worth from {before[i]:.6f} to {after[i]:.6f} "
                            f"(round {int(st.g[G_ROUND])}, phase {int(st.g[G_PHASE])})")
                        checked[name] += 1
    assert min(checked[v] for v in ("keep", "buy", "load", "golgi", "complete")) > 50, checked
    assert checked["target"] > 50, checked


def _return_states(players, policy, games, seed):
    """Each seat's setup return decision in `games` games (the State before it)."""
    seating = homogeneous(policy, players)
    for g in range(games):
        st, gt = game_in_progress(_base(), players, seed, g, seating, 0)
        while st.g[G_PHASE] == PH_RETURN:
            yield copy_state(st), gt
            next_decision(st, gt)


def _returned(st, gt) -> int:
    _, code = next_decision(copy_state(st), gt)
    kind, _, _, card, _, _ = decode_action(code)
    assert kind == ACT_RETURN
    return card


def hand_of(st) -> list[int]:
    seat = int(st.g[G_TO_MOVE])
    return [c for c in range(64) if int(st.hand[seat]) >> c & 1]


@pytest.mark.parametrize("players", COUNTS)
def test_a_dominated_dealt_card_is_never_kept_over_its_better(players) -> None:
    """Shipped pairs as dealt, and pairs made by giving one dealt card another's figures
    improved at random (its type, route and figures: the deal is by card id, so the same)."""
    base = _base()
    rng = np.random.default_rng(players)
    shipped = made = 0
    for policy in POLICIES:
        for i, (st, gt) in enumerate(_return_states(players, policy, 40, 31 + players)):
            hand = hand_of(st)
            cards = [base.cards[c] for c in hand]
            returned = _returned(st, gt)
            for a in cards:
                for b in cards:
                    if a.id != b.id and dominates(a, b) and not dominates(b, a):
                        assert returned != a.id, (f"{players}p {policy} returned {a.name} and "
                                                  f"kept {b.name}, which it dominates")
                        shipped += 1
            if i >= 6 * players:  # the first six games' decisions
                continue
            # make a dominator of each kept non-resource card in turn from another dealt card
            real = [c for c in cards if c.type != "additional_resource"]
            for b in real:
                others = [c for c in cards if c.id != b.id]
                a = others[int(rng.integers(len(others)))]
                step = {f: int(rng.integers(0, getattr(b, f) + 1)) for f in COSTS}
                better = dataclasses.replace(
                    b, id=a.id, name=a.name, hp=b.hp + int(rng.integers(0, 3)),
                    bonus_per_match=b.bonus_per_match + int(rng.integers(0, 2) if b.bonus_per_match else 0),
                    **{f: getattr(b, f) - step[f] for f in COSTS})
                if better == dataclasses.replace(b, id=a.id, name=a.name):
                    better = dataclasses.replace(better, hp=b.hp + 1)
                gt2 = tables_for(with_card(base, better), players)
                assert _returned(st, gt2) != a.id, (
                    f"{players}p {policy} returned {better} over {b}, which it dominates")
                made += 1
    assert made > 100, made
    assert shipped > 15, shipped


def test_dominance_is_what_it_says() -> None:
    cards = {c.name: c for c in _base().cards}
    assert dominates(cards["Sulfation"], cards["Cytochrome P450 2E1"])
    assert dominates(cards["Amylase"], cards["Pepsin"])
    assert not dominates(cards["Oxytocin"], cards["Glucagon"])  # another Golgi resource
    assert not dominates(cards["Insulin"], cards["Insulin Receptor"])  # another type
    assert not dominates(cards["Glycogen Granule"], cards["Lipid Droplet"])  # no route
