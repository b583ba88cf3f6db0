"""What the heuristic evaluator counts of a goal when it values a card: a seat with a marker on a
most_completed goal (the shipped Detoxification race, 8 HP) counts, for one more completed card
of the race's types, the bonus times the better chance of winning the race at its new lead; the
chance never falls as the lead grows, so the worth is never negative, and a seat without a marker
there counts nothing of it."""

from __future__ import annotations

import numpy as np
import pytest

from simcell.config.load import load_default_game
from simcell.kernel.jit import kernel_jit
import dataclasses

from simcell.config.arrays import build_tables
from simcell.policies.evaluate import (
    GOAL_NEW_TYPE,
    RACE_CHANCE,
    completion_hp,
    goal_bonuses,
    goal_expectation,
    marker_value,
    race_chance,
)
from simcell.policies.registry import HP_INDEX
from simcell.policies.view import make_view
from simcell.runner.fields import homogeneous
from simcell.vocabulary import CARD_TYPES, GC_MOST_COMPLETED, GOAL_CRITERIA
from tests.support.stepping import game_in_progress


@kernel_jit
def chance_at(lead):
    return race_chance(lead)


@kernel_jit
def expectation(st, seat, gt, gi):
    return goal_expectation(make_view(st, seat), gt, gi)


@kernel_jit
def marker_worth(st, seat, gt, params, gi):
    return marker_value(make_view(st, seat), gt, params, gi)


@kernel_jit
def worths(st, gt, seat, card, goal_bonus):
    """goal_bonuses for `seat` into goal_bonus, and the completion HP of `card`."""
    v = make_view(st, seat)
    goal_bonuses(v, gt, goal_bonus)
    return completion_hp(v, gt, goal_bonus, card)


def test_the_race_chance_never_falls_and_is_the_table_at_whole_leads() -> None:
    leads = np.linspace(-4.0, 4.0, 161)
    chances = [chance_at(x) for x in leads]
    assert all(b >= a for a, b in zip(chances, chances[1:]))
    for lead in range(-4, 5):
        assert chance_at(float(lead)) == RACE_CHANCE[min(max(lead, -2), 2) + 2]
    assert chance_at(0.5) == (RACE_CHANCE[2] + RACE_CHANCE[3]) / 2


def test_a_card_of_the_race_is_worth_its_better_chance_to_a_marker_holder() -> None:
    game = load_default_game()
    st, gt = game_in_progress(game, 5, 3, 0, homogeneous("planner", 5), 30)
    race = next(g for g in game.goals if g.criterion == GOAL_CRITERIA[GC_MOST_COMPLETED])
    detox = CARD_TYPES.index(race.type)
    gi = [int(g) for g in st.goals[: gt.goals_revealed]].index(race.id)
    card = next(c.id for c in game.cards if c.type == race.type)
    seat = 2
    goal_bonus = np.zeros(8)
    st.goal_mark[:, :] = 0
    for mine in range(4):
        for best in range(4):
            st.completed_by_type[:, detox] = 0
            st.completed_by_type[seat, detox] = mine
            st.completed_by_type[(seat + 1) % 5, detox] = best
            st.goal_mark[gi, seat] = 0
            without = worths(st, gt, seat, card, goal_bonus)
            assert goal_bonus[detox] == 0.0
            st.goal_mark[gi, seat] = 1
            hp = worths(st, gt, seat, card, goal_bonus)
            lead = mine - best
            gain = race.hp * (chance_at(lead + 1.0) - chance_at(float(lead)))
            assert goal_bonus[detox] == gain >= 0.0
            assert hp == without + gain
            # no other type's worth moves with the race
            others = [goal_bonus[t] for t in range(GOAL_NEW_TYPE + 1) if t != detox]
            st.goal_mark[gi, seat] = 0
            worths(st, gt, seat, card, goal_bonus)
            assert others == [goal_bonus[t] for t in range(GOAL_NEW_TYPE + 1) if t != detox]
    # level, the first card of the race is worth most of the chance it opens
    st.completed_by_type[:, detox] = 0
    st.goal_mark[gi, seat] = 1
    worths(st, gt, seat, card, goal_bonus)
    assert goal_bonus[detox] == race.hp * (RACE_CHANCE[3] - RACE_CHANCE[2])


def test_a_marker_on_the_race_is_worth_its_chance_with_the_cards_in_hand_at_half() -> None:
    game = load_default_game()
    st, gt = game_in_progress(game, 5, 3, 0, homogeneous("planner", 5), 30)
    race = next(g for g in game.goals if g.criterion == GOAL_CRITERIA[GC_MOST_COMPLETED])
    detox = CARD_TYPES.index(race.type)
    gi = [int(g) for g in st.goals[: gt.goals_revealed]].index(race.id)
    cards = [c.id for c in game.cards if c.type == race.type][:3]
    seat = 1
    st.completed_by_type[:, detox] = 0
    st.completed_by_type[(seat + 2) % 5, detox] = 1  # a rival one ahead
    worth = []
    for held in range(4):
        st.hand[seat] = np.int64(sum(1 << c for c in cards[:held]))
        worth.append(expectation(st, seat, gt, gi))
        assert worth[-1] == race.hp * chance_at(-1.0 + 0.5 * held)
    assert worth == sorted(worth) and worth[0] < worth[-1]


def test_the_planner_values_a_first_marker_at_the_rules_hp_for_the_next_claim() -> None:
    """rules.first_marker_hp = [3, 1]: the planner's worth of a first marker falls by 2 HP (at
    its HP weight) once one goal card has been claimed, and not before."""
    game = load_default_game()
    falling = dataclasses.replace(game, rules=dataclasses.replace(game.rules, first_marker_hp=(3, 1)))
    seating = homogeneous("planner", 5)
    params = seating.player_params[0]
    st, gt = game_in_progress(game, 5, 3, 0, seating, 30)
    gt_falling = build_tables(falling, 5)
    st.goal_nmark[:] = 0
    st.goal_mark[:, :] = 0
    for gi in range(gt.goals_revealed):
        assert marker_worth(st, 1, gt_falling, params, gi) == marker_worth(st, 1, gt, params, gi)
    st.goal_nmark[0] = 1  # one goal card claimed (by another seat)
    st.goal_mark[0, 0] = 1
    hp_weight = params[HP_INDEX["hp"]]
    for gi in range(1, gt.goals_revealed):
        shipped, ruled = marker_worth(st, 1, gt, params, gi), marker_worth(st, 1, gt_falling, params, gi)
        assert ruled < shipped and shipped - ruled == pytest.approx(2 * hp_weight)
