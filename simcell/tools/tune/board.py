"""Tune's board and rules stage: the whole-number board values a `[tune] board` list names (the
starting-ATP schedule, goal HP, slot prices: each entry of a list its own value), within ±range of
their values, and the rule switches `[tune] rules` names (both ways of a yes/no switch, every word
of a word switch, a whole number within ±range), searched for the seats' target (every seat's
win share within the band; the objective is the worst seat's distance from the fair share over
the player counts) with the optional targets of [tune.targets] as constraints, on the tuned card
set and the first round's games (the same games for every assignment). optuna's TPE proposes the
assignments (tools/search.py), the current values first; the best is kept only when it ranks
above them (meeting more of the targets, then nearer fair seats), and the holdout confirms it
with the cards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from simcell.config.errors import ConfigError
from simcell.config.summary import board_values
from simcell.config.variants import Setting, config_path
from simcell.config.tune import TuneSpace, rule_values
from simcell.reports.data import RunData
from simcell.reports.seat_table import worst_seat_pp as seat_objective
from simcell.tools.tune.targets import target_rows
from simcell.tools.search import search_values


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


def searched_values(game, space: TuneSpace) -> dict[str, object]:
    """The stage's values as they are: board values (board.SECTION.KEY), then rule switches
    (rules.KEY), each in the order the space names them."""
    board = board_values(game)
    return {**{k: board[k] for k in space.board}, **{f"rules.{k}": getattr(game.rules, k) for k in space.rules}}


def rank(tried: list[tuple[dict, float, float]], start: dict) -> list[tuple[dict, float, float]]:
    """(values, objective, excess) best first: meeting the targets, then nearest them, then the
    objective; ties (a plateau of the objective) to the fewest changed values, then the smallest
    steps."""
    def moves(a: dict) -> tuple[int, int]:
        return (sum(a[k] != start[k] for k in a),
                sum(abs(a[k] - start[k]) if isinstance(start[k], int) else a[k] != start[k] for k in a))

    return sorted(tried, key=lambda t: (t[2] > 0, t[2], t[1], moves(t[0])))


def search_board(game, space: TuneSpace, play: Callable[[list], Path], seed: int,
                 say: Callable[[str], None] = lambda _text: None) -> dict:
    """{"values": [[key, from, to]], "before": pp, "after": pp, "outside_before": x,
    "outside_after": x, "trials": [...]}: the values the search keeps (none when no assignment
    ranks above the current one), the worst seat and the targets' summed distance outside their
    ranges before and after, and every trial. `play(settings)` plays the tuned set with those
    settings on the search's games; `say` hears each trial's result and the best so far."""
    current = searched_values(game, space)
    targets = space.targets.as_dict()
    bounds, start = {}, {}
    for key, value in current.items():
        if key.startswith("rules."):
            bounds[key], start[key] = rule_values(game.rules, key.removeprefix("rules."), space.range), value
            continue
        for name, i in _names(key, value):
            x = value[i] if i is not None else value
            bounds[name], start[name] = (max(0, x - space.range), x + space.range), x
    width = [1]  # constraints per evaluation (the same for every assignment the rules accept)
    scored: list[tuple[dict, float, float]] = []

    def evaluate(assignment: dict):
        try:
            run = RunData(play(settings_of(assignment, current)))
        except ConfigError:  # values the rules refuse (slot prices that do not fit the board ...)
            return (float("inf"), [float("inf")] * width[0]) if targets else float("inf")
        x = seat_objective(run)
        outside = []
        if targets:
            rows = target_rows(run, targets)  # each target's distance outside its range, in range widths
            outside = (rows["outside"] / (rows["range_high"] - rows["range_low"]).where(lambda w: w > 0, 1)).tolist()
            width[0] = len(outside)
        scored.append((assignment, x, sum(outside)))
        _, best_x, best_out = rank(scored, start)[0]
        say(f"tune: board and rules trial {len(scored)} of {space.board_trials}: worst seat {x:.1f} pp"
            + (f", targets {sum(outside):.2f} range widths outside" if targets else "")
            + f"; best so far {best_x:.1f} pp" + (f", {best_out:.2f} outside" if targets else ""))
        return (x, outside) if targets else x

    tried = rank(search_values(evaluate, bounds, [start], space.board_trials, seed, constrained=bool(targets)),
                 start)
    _, before, outside_before = next(t for t in tried if t[0] == start)
    best, after, outside_after = tried[0]
    keep = best != start and (outside_after, after) < (outside_before, before)
    chosen = settings_of(best, current) if keep else []
    return {
        "values": [[s.key, current[s.key], v] for s, v in chosen if current[s.key] != v],
        "before": before, "after": after if keep else before,
        "outside_before": outside_before, "outside_after": outside_after if keep else outside_before,
        "trials": [{"values": {k: v for k, v in a.items() if v != start[k]}, "worst_seat_pp": x,
                    **({"targets_outside": o} if targets else {})} for a, x, o in tried],
    }
