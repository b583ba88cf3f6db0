"""Shared parity machinery: play kernel games with traces, replay them in the referee, and
compare every record field; count the rule paths the games exercised."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np

from simcell.config.arrays import type_bits
from simcell.config.model import GameDefinition
from simcell.vocabulary import COMPLETED_TYPES, GC_MOST_COMPLETED, GOAL_CRITERIA
from simcell.referee import GameMeta, replay
from simcell.runner.fields import Seating, homogeneous
from simcell.runner.games import play_traced


def compare_records(traced, result) -> list[str]:
    """Differences between the kernel's records and the referee's, field by field."""
    diffs = []
    for seat, rec in enumerate(result.player_records):
        kernel = traced.players[seat]
        for name in kernel.dtype.names:
            a = np.asarray(kernel[name]).tolist()
            b = rec[name]
            if isinstance(b, (list, tuple)):
                b = np.asarray(b).tolist()
            if a != b:
                diffs.append(f"seat {seat} {name}: kernel {a} referee {b}")
    for name in traced.game.dtype.names:
        a = np.asarray(traced.game[0][name]).tolist()
        b = result.game_record[name]
        if isinstance(b, (list, tuple)):
            b = np.asarray(b).tolist()
        if a != b:
            diffs.append(f"game {name}: kernel {a} referee {b}")
    return diffs


def most_completed_tie(game: GameDefinition, traced) -> bool:
    """A most_completed goal in play on which two or more players tie at the top (>= 1)."""
    goals = {g.id: g for g in game.goals}
    for gid in traced.game[0]["goals_in_play"]:
        if gid < 0:
            continue
        goal = goals[int(gid)]
        if goal.criterion != GOAL_CRITERIA[GC_MOST_COMPLETED]:
            continue
        bits = type_bits(goal.type)
        counts = [
            sum(int(row["completed_by_type"][t]) for t in range(len(COMPLETED_TYPES)) if bits >> t & 1)
            for row in traced.players
        ]
        top = max(counts)
        if top >= 1 and counts.count(top) >= 2:
            return True
    return False


def run_parity(
    game: GameDefinition, players: int, seed: int, games: range, counts: Counter,
    seating: Seating | None = None,
) -> list[str]:
    """Replay kernel games in the referee; returns the disagreements, updates rule-path counts.
    `seating`: the field that plays (default random in every seat)."""
    failures = []
    seating = seating or homogeneous("random", players)
    for g in games:
        traced = play_traced(game, players, seed, g, seating)
        order = seating.seat_orders[g % seating.rotations]
        meta = GameMeta(game=g, deal=g, rotation=g % seating.rotations,
                        seat_player=tuple(int(p) for p in order),
                        seat_policy=tuple(int(seating.player_label[p]) for p in order))
        try:
            result = replay(game, players, traced.trace, meta)
        except Exception as exc:  # the referee's verdict, reported with the game
            failures.append(f"{players}p game {g}: {exc}")
            continue
        diffs = compare_records(traced, result)
        failures += [f"{players}p game {g}: {d}" for d in diffs]
        counts["games"] += 1
        turns = [e for e in result.log if e.kind == "turn"]
        counts["decisions"] += sum(1 for e in turns if not e.detail.get("automatic"))
        counts["automatic_turns"] += sum(1 for e in turns if e.detail.get("automatic"))
        counts["displacements"] += int(traced.players["vesicles_lost"].sum())
        counts["reshuffles"] += int(traced.game[0]["reshuffles"])
        counts["supply_shortfalls"] += int(traced.game[0]["supply_shortfall"].sum())
        counts["ties_for_win"] += int(traced.game[0]["tie"])
        counts["most_completed_ties"] += int(most_completed_tie(game, traced))
        counts["empty_slots"] += sum(
            1 for e in result.log if e.kind == "refresh" and None in e.detail.get("slots", ())
        )
        counts["exocytoses"] += int(traced.players["completed_by_type"][:, 1:5].sum())
        counts["enzymes"] += int(traced.players["completed_by_type"][:, 0].sum())
        counts["detox"] += int(traced.players["completed_by_type"][:, 5].sum())
        counts["goal_markers"] += int(traced.players["goal_markers_placed"].sum())
        counts["laureates"] += int(traced.players["laureates_taken"].sum())
        counts["grey_flasks"] += int(traced.players["grey_used"].sum())
        counts["exhausts"] += int(traced.players["flasks_exhausted"].sum())
        counts["hp_event_losses"] += int((traced.players["hp_by_source"][:, 9] < 0).sum())
    return failures


def with_rules(game: GameDefinition, **changes) -> GameDefinition:
    return dataclasses.replace(game, rules=dataclasses.replace(game.rules, **changes))


def with_board(game: GameDefinition, **changes) -> GameDefinition:
    return dataclasses.replace(game, board=dataclasses.replace(game.board, **changes))
