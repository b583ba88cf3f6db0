"""End of game: goal bonuses, then receptor bonuses, then winners and ranks (docs/rules.md §4, §5, §8)."""

from __future__ import annotations

from simcell.config.model import Goal
from simcell.vocabulary import COMPLETED_TYPES, HP_SOURCES, RECEPTOR_MATCH, RESOURCES
from simcell.referee.modifiers import completed_count
from simcell.referee.state import GAME_OVER, GameState

GOAL_BONUS = HP_SOURCES.index("goal_bonus")
RECEPTOR_BONUS = HP_SOURCES.index("receptor_bonus")


def score_game(state: GameState) -> None:
    """Add goal bonuses, then receptor bonuses, to every player's HP by source."""
    state.add_log("scoring")
    goals = {g.id: g for g in state.game.goals}
    for goal_index, goal_id in enumerate(state.goals_in_play):
        goal = goals[goal_id]
        for seat in state.goal_markers[goal_index]:
            bonus = goal_bonus(state, goal, seat)
            state.seats[seat].hp_by_source[GOAL_BONUS] += bonus
            state.seats[seat].goal_bonus_paid[goal_id] = bonus
            state.add_log("goal_bonus", seat, goal=goal_id, hp=bonus)
    for player in state.seats:
        bonus = receptor_bonus(state, player.seat)
        player.hp_by_source[RECEPTOR_BONUS] += bonus
        if bonus:
            state.add_log("receptor_bonus", player.seat, hp=bonus)
    state.phase = GAME_OVER
    state.to_move = None
    state.add_log("final", winners=winners(state))


def goal_bonus(state: GameState, goal: Goal, seat: int) -> int:
    """What a goal card pays at the end to a player with a marker on it."""
    if goal.criterion == "per_completed":
        return goal.hp * completed_count(state, seat, goal.type or "")
    if goal.criterion == "most_completed":
        mine = completed_count(state, seat, goal.type or "")
        best = max(completed_count(state, s, goal.type or "") for s in range(state.players))
        return goal.hp if mine >= 1 and mine == best else 0
    if goal.criterion == "per_distinct_types":
        return goal.hp * sum(1 for t in COMPLETED_TYPES if completed_count(state, seat, t) >= 1)
    if goal.criterion == "per_leftover":
        stock = state.seats[seat].stock[RESOURCES.index(goal.resource or "")]
        return goal.hp * (stock // goal.n)
    raise ValueError(f"unknown goal criterion {goal.criterion!r}")


def receptor_bonus(state: GameState, seat: int) -> int:
    """Each completed receptor: bonus_per_match x its owner's completed hormones of its kind."""
    total = 0
    for card_id in state.seats[seat].completed:
        card = state.cards[card_id]
        if card.type in RECEPTOR_MATCH:
            total += card.bonus_per_match * completed_count(state, seat, RECEPTOR_MATCH[card.type])
    return total


def winners(state: GameState) -> list[int]:
    """Seats with the most HP (several on a tie; the win is split)."""
    best = max(p.hp for p in state.seats)
    return [p.seat for p in state.seats if p.hp == best]


def rank(state: GameState, seat: int) -> int:
    """1 + the number of players with strictly more HP."""
    mine = state.seats[seat].hp
    return 1 + sum(1 for p in state.seats if p.hp > mine)
