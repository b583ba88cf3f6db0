"""The referee's records of a finished game, field for field the kernel's record dtypes
(`vocabulary.player_record_dtype`, `vocabulary.game_record_dtype`), as plain Python values."""

from __future__ import annotations

from dataclasses import dataclass, field

from simcell.config.model import GameDefinition
from simcell.vocabulary import MAX_PLAYERS, MIN_PLAYERS
from simcell.referee.modifiers import completed_by_type
from simcell.referee.scoring import rank, winners
from simcell.referee.state import GameState, LogEvent


@dataclass
class RefereeResult:
    """Records of one game: player records in seat order, the game record, and the log."""

    player_records: list[dict]
    game_record: dict
    log: list[LogEvent] = field(default_factory=list)


@dataclass(frozen=True)
class RecordSizes:
    """Array sizes of the records, from the game definition (never from one player count)."""

    n_locations: int
    max_rounds: int
    n_events: int
    n_goals_max: int


def record_sizes(game: GameDefinition) -> RecordSizes:
    return RecordSizes(
        n_locations=len(game.board.locations),
        max_rounds=max(game.rounds(p) for p in range(MIN_PLAYERS, MAX_PLAYERS + 1)),
        n_events=len(game.events),
        n_goals_max=max(game.board.goals_revealed),
    )


def mask(card_ids: list[int]) -> int:
    """A 64-bit id bit set: bit i = id i."""
    out = 0
    for i in card_ids:
        out |= 1 << i
    return out


def padded(values: list[int], size: int) -> list[int]:
    return list(values) + [-1] * (size - len(values))


def goal_markers_by_card(state: GameState, seat: int) -> tuple[list[int], list[int], list[int]]:
    """The seat's goal marker on each goal card of the game's data (in id order): the round it
    was placed (0: none), its place in that card's claim order (1 = first; 0: none), and the
    end bonus the card paid the seat."""
    rounds, orders, bonus = [], [], []
    for goal in state.game.goals:
        r = o = 0
        if goal.id in state.goals_in_play:
            gi = state.goals_in_play.index(goal.id)
            if seat in state.goal_markers[gi]:
                r = state.goal_marker_round.get((gi, seat), 0)
                o = state.goal_markers[gi].index(seat) + 1
        rounds.append(r)
        orders.append(o)
        bonus.append(state.seats[seat].goal_bonus_paid.get(goal.id, 0))
    return rounds, orders, bonus


def build_result(state: GameState) -> RefereeResult:
    """Records of a scored game."""
    sizes = record_sizes(state.game)
    meta = state.meta
    won = winners(state)
    share = 1.0 / len(won)
    players = []
    for p in state.seats:
        marker_round, marker_order, goal_bonus = goal_markers_by_card(state, p.seat)
        players.append(
            {
                "game": meta.game,
                "deal": meta.deal,
                "rotation": meta.rotation,
                "seat": p.seat,
                "player": meta.player_of(p.seat),
                "policy": meta.policy_of(p.seat),
                "final_hp": p.hp,
                "hp_by_source": list(p.hp_by_source),
                "hp_by_round": padded(p.hp_by_round, sizes.max_rounds),
                "win_share": share if p.seat in won else 0.0,
                "rank": rank(state, p.seat),
                "dealt_mask": mask(p.dealt),
                "kept_mask": mask(p.kept),
                "bought_mask": mask(p.bought),
                "completed_mask": mask(p.completed),
                "completed_by_type": completed_by_type(state, p.seat),
                "flasks_exhausted": p.flasks_exhausted,
                "grey_used": p.grey_used,
                "laureates_taken": p.laureates_taken,
                "laureates_as_holder": p.laureates_as_holder,
                "goal_markers_placed": p.goal_markers_placed,
                "goal_marker_round": marker_round,
                "goal_marker_order": marker_order,
                "goal_bonus_by_goal": goal_bonus,
                "vesicles_lost": p.vesicles_lost,
                "vesicles_left": sum(1 for _, _, v in state.vesicles() if v.owner == p.seat),
                "placements_by_location": list(p.placements_by_location),
                "flows": [list(row) for row in p.flows],
                "stock": list(p.stock),
            }
        )
    game_record = {
        "game": meta.game,
        "deal": meta.deal,
        "rotation": meta.rotation,
        "players": state.players,
        "tie": len(won) > 1,
        "rounds": state.rounds,
        "event_order": padded(state.events_revealed, sizes.n_events),
        "events_removed": mask(state.events_set_aside),
        "goals_in_play": padded(state.goals_in_play, sizes.n_goals_max),
        "first_player": padded(state.first_player, sizes.max_rounds),
        "peak_use": list(state.peak_use),
        "supply_shortfall": list(state.supply_shortfall),
        "reshuffles": state.reshuffles,
        "detox_removed": mask(state.detox_removed),
        "visible_mask": mask(state.visible),
    }
    return RefereeResult(players, game_record, list(state.log))
