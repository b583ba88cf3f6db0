"""Tune's board stage: the whole-number board values a `[tune] board` list names (the starting-ATP
ladder, goal HP, slot prices: each entry of a list its own value), searched within ±range of
their values for the seats' target (every seat's win share within the band; the objective is
the worst seat's distance from the fair share over the player counts), on the tuned card set and
the first round's games (the same games for every assignment). optuna's TPE proposes the
assignments (tools/ladder.py), the current values first; the best is kept only when it beats
them, and the holdout confirms it with the cards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from simcell.config.errors import ConfigError
from simcell.config.summary import board_values
from simcell.config.sweep import Setting, config_path
from simcell.config.tune import TuneSpace
from simcell.reports.data import RunData
from simcell.reports.seat_causes import objective as seat_objective
from simcell.tools.ladder import search_values


def _names(key: str, value) -> list[tuple[str, int | None]]:
    """The searched names of one board value: itself, or key[i] per entry of a list."""
    return [(f"{key}[{i}]", i) for i in range(len(value))] if isinstance(value, list) else [(key, None)]


def settings_of(assignment: dict[str, int], values: dict) -> list[tuple[Setting, object]]:
    """(Setting, value) per board value of an assignment, lists rebuilt from their entries."""
    out = []
    for key, value in values.items():
        names = _names(key, value)
        if not any(n in assignment for n, _ in names):
            continue
        v = [assignment[n] for n, _ in names] if isinstance(value, list) else assignment[key]
        out.append((Setting(key, config_path(key), ()), v))
    return out


def search_board(game, space: TuneSpace, play: Callable[[list], Path], seed: int) -> dict:
    """{"values": [[key, from, to]], "before": pp, "after": pp, "trials": [...]}: the board values
    the search keeps (none when no assignment beats the current one) and every trial.
    `play(settings)` plays the tuned set with those board settings on the search's games."""
    current = {k: v for k, v in board_values(game).items() if k in space.board}
    bounds, start = {}, {}
    for key, value in current.items():
        for name, i in _names(key, value):
            x = value[i] if i is not None else value
            bounds[name], start[name] = (max(0, x - space.range), x + space.range), x

    def evaluate(assignment: dict[str, int]) -> float:
        try:
            return seat_objective(RunData(play(settings_of(assignment, current))))
        except ConfigError:  # values the rules refuse (slot prices that do not fit the board ...)
            return float("inf")

    tried = search_values(evaluate, bounds, [start], space.board_trials, seed)
    before = next(x for v, x in tried if v == start)
    best, after = tried[0]
    keep = best != start and after < before
    chosen = settings_of(best, current) if keep else []
    return {
        "values": [[s.key, current[s.key], v] for s, v in chosen if current[s.key] != v],
        "before": before, "after": after if keep else before,
        "trials": [{"values": {k: v for k, v in a.items() if v != start[k]}, "worst_seat_pp": x}
                   for a, x in tried],
    }
