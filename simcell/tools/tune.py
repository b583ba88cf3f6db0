"""`simcell tune`: card values toward the bands, fewest changes first, confirmed on fresh seeds.

A card's contrast against its type responds mostly to its own values (changing one card's value
by d moves its own contrast by d times its response, every other card of its type by 1/(m − 1)
of that the other way), so the search is one root-finding per card rather than a black box over
every value at once (docs/decisions.md):

1. Responses: runs with one card of each type stepped by RESPONSE_STEP in one field, paired
   with the unchanged set on the same games (the cards beyond the band first): each card's own
   response per unit, and its type's mean for the cards not measured. A card that has moved
   then uses its secant (its change of contrast over its change of value between rounds).
2. Rounds: play the current set on the search seed, measure every card; each card shown beyond
   the band (its own 95% interval wholly outside it at some player count: more sensitive than the
   report's simultaneous verdict, the holdout guards against a noisy step) is stepped by the whole
   number of units that brings its predicted contrast nearest zero, in its preferred field, never
   beyond ±range of its original value or below the field's minimum. The games double each round
   (cards that were only inconclusive are resolved, or left, as the intervals shrink).
3. Prune (fewest changes first): the changes whose card is predicted within the band without
   them are reverted together and measured; those the set still does not need stay reverted.
4. Board and rules (when `[tune] board` or `rules` names values): the seats' target searched
   over those board values and rule switches on the tuned set, the optional targets of
   [tune.targets] as constraints (tools/tune_board.py). When it keeps any, the rounds and the
   prune run again under them (`second_pass`), from the cards as tuned so far; that pass is
   kept only when it leaves the cards nearer the band than the first pass's values did.
5. Holdout: the original and the tuned set compared by `simcell compare` on a fresh seed at the
   confirmation games, and every target's verdict reported from those games alone.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from simcell.config.load import load_run_config
from simcell.config.sweep import Setting, base_config, config_path, write_variant
from simcell.config.tune import TUNE_FIELDS, TuneSpace, card_fields, write_tuned
from simcell.reports.tune import TUNE_FILE, build_tune, card_state, effect_changes, objective
from simcell.reports.data import RunData
from simcell.tools import Plays, holdout_seed
from simcell.tools.compare import run_compare
from simcell.tools.tune_board import search_board

RESPONSE_STEP = 2  # units a response run moves a card by (a larger signal than 1 at equal noise)
MIN_RESPONSE_RUNS, MAX_RESPONSE_RUNS = 2, 6  # response runs per field
AIM = 0.5  # a stepped card aims at a contrast within AIM x the band


def _name(changes: dict[tuple[str, str], int], extra: list = ()) -> str:
    text = json.dumps(sorted([list(k) + [v] for k, v in changes.items()]))
    if extra:
        text += json.dumps([[s.key, v] for s, v in extra])
    return hashlib.sha256(text.encode()).hexdigest()[:10] if changes or extra else "original"


def run_tune(config: Path, folder: Path, plays: Plays, space: TuneSpace, *, seed: int | None = None) -> Path:
    rc = load_run_config(config)
    base = base_config(config)
    band = dict(rc.report.bands)["card_open_hand_pp"]
    at_seed = seed if seed is not None else rc.seed
    cards = {c.name: c for c in rc.game.cards}
    types = {c.name: c.type for c in rc.game.cards}
    tunable = {name: [f for f in space.fields if f in card_fields(cards[name])] for name in space.cards}
    original = {(n, f): getattr(cards[n], f) for n, fs in tunable.items() for f in fs}
    played = runs_played = 0

    def play(changes: dict, n: int, at: int, where: str, extra: list = ()) -> Path:
        nonlocal played, runs_played
        assignments = [(Setting(f'cards."{c}".{f}', ("overrides", "cards", c, f), ()), v)
                       for (c, f), v in sorted(changes.items())] + list(extra)
        name = f"{n}-{_name(changes, extra)}"
        root = plays.into(write_variant(config, base, name, assignments, folder), folder / where / name, n, at)
        run = RunData(root)
        played += sum(seg.games for seg in run.segments)
        runs_played += 1
        return root

    n = space.screen_games
    clock = time.perf_counter()
    seconds: dict[str, float] = {}
    plays.say(f"tune: the original set on {n:,} games")
    start = play({}, n, at_seed, "search")
    state = card_state(start)
    slopes, responses = _responses(space, start, state, tunable, types, original, band,
                                   lambda ch: play(ch, n, at_seed, "responses"))
    seconds["responses (and the original set)"] = time.perf_counter() - clock
    rounds, unreachable = [], set()
    began = time.perf_counter()
    spent: list[str] = []  # the stages the budget left out

    def within_budget(stage: str) -> bool:
        over = ((space.budget_games is not None and played >= space.budget_games)
                or (space.budget_minutes is not None and time.perf_counter() - began >= 60 * space.budget_minutes))
        if over:
            spent.append(stage)
            plays.say(f"tune: the budget is spent ({played:,} games, {(time.perf_counter() - began) / 60:.1f} "
                      f"min): no {stage}")
        return not over

    def card_pass(changes: dict, state, n: int, extra: list, k: int) -> tuple[dict, list, int]:
        """The rounds and the prune from `changes` (measured in `state` on n games) with the board
        and rule `extra` settings: (the changes kept, those pruned, the last round's games)."""
        name = "" if k == 1 else f" (pass {k})"
        last: dict[tuple[str, str], tuple[int, np.ndarray]] = {}  # each step: value before, contrast before
        for r in range(space.rounds):
            if r and not within_budget(f"round {r + 1}{name} or later"):
                break
            clock = time.perf_counter()
            if r:
                n *= 2  # the next round looks closer: inconclusive cards resolve as intervals shrink
                state = card_state(play(changes, n, at_seed, "search", extra))
            beyond = (state["contrast_pp_low"] > band) | (state["contrast_pp_high"] < -band)
            out = sorted(set(state.loc[beyond & state["name"].isin(list(tunable)), "name"]))
            goal = objective(state, band)
            plays.say(f"tune round {r + 1} of {space.rounds}{name}: {n:,} games, {len(out)} cards beyond the band, "
                      f"objective {goal:.2f} pp beyond the band, {len(changes)} values changed")
            for (card, f), (before, contrast_before) in list(last.items()):
                now = changes.get((card, f), original[(card, f)])
                rows = state[state["name"] == card]
                if now != before and len(rows) == len(contrast_before):
                    own = float(np.mean((rows["contrast_pp"].to_numpy() - contrast_before) / (now - before)))
                    typed = slopes.get((types[card], f), 0.0)
                    # the card's own response, kept to the sign and within 2x either way of its type's
                    if typed and np.sign(own) == np.sign(typed):
                        slopes[(card, f)] = float(np.clip(abs(own), abs(typed) / 2, abs(typed) * 2)) * np.sign(typed)
            last, stepped = {}, {}
            for card in out:
                step = _step(card, state[state["name"] == card], tunable[card], changes, original,
                             slopes, types[card], space, band)
                if step is None:
                    unreachable.add(card)
                    continue
                key, value, reaches = step
                (unreachable.discard if reaches else unreachable.add)(card)
                if value != changes.get(key, original[key]):
                    stepped[key] = value
                    last[key] = (changes.get(key, original[key]),
                                 state.loc[state["name"] == card, "contrast_pp"].to_numpy())
            rounds.append({"pass": k, "round": r + 1, "games": n, "beyond the band": len(out),
                           "beyond the band, pp": round(goal, 2), "values changed": len(changes),
                           "stepped": ", ".join(f"{c}.{f} → {v}" for (c, f), v in sorted(stepped.items()))})
            changes = dict(changes)
            for key, value in stepped.items():
                if value == original[key]:
                    changes.pop(key, None)
                else:
                    changes[key] = value
            seconds[f"round {r + 1}{name}"] = time.perf_counter() - clock
        pruned = []
        if space.prune and changes and within_budget(f"prune{name}"):
            clock = time.perf_counter()
            plays.say(f"tune: which of the {len(changes)} changes the tuned set needs ({n:,} games){name}")
            changes, pruned = _prune(changes, original, slopes, types, band,
                                     lambda ch: card_state(play(ch, n, at_seed, "prune", extra)))
            seconds[f"prune{name}"] = time.perf_counter() - clock
        return changes, pruned, n

    final, pruned, n = card_pass({}, state, n, [], 1)
    board: dict = {"values": [], "trials": []}
    if (space.board or space.rules) and within_budget("board and rules stage"):
        clock = time.perf_counter()
        plays.say(f"tune: {', '.join(list(space.board) + [f'rules.{k}' for k in space.rules])} for the seats"
                  f"{' within the targets' if space.targets.as_dict() else ''} "
                  f"({space.board_trials} trials of {space.screen_games:,} games)")
        board = search_board(rc.game, space, lambda extra: play(final, space.screen_games, at_seed, "board", extra),
                             at_seed, plays.say)
        seconds["board and rules"] = time.perf_counter() - clock
    settings = [(Setting(k, config_path(k), ()), to) for k, _was, to in board["values"]]
    again: dict = {}
    if settings and space.second_pass and within_budget("second card pass"):
        # the kept board and rule values move the cards too: their rounds again, under them
        n = space.screen_games
        plays.say(f"tune: the cards again under {', '.join(f'{s.key} = {json.dumps(v)}' for s, v in settings)} "
                  f"({n:,} games)")
        state = card_state(play(final, n, at_seed, "search", settings))
        first = final
        second, pruned_again, n = card_pass(final, state, n, settings, 2)
        # kept only when it brings the cards nearer the band than the first pass's values, both
        # under the kept settings on the last round's games (coordinate descent can overshoot)
        goals = [objective(card_state(play(ch, n, at_seed, "prune", settings)), band) for ch in (first, second)]
        again = {"games": n, "first pass, pp": round(goals[0], 2), "second pass, pp": round(goals[1], 2),
                 "kept": goals[1] < goals[0]}
        plays.say(f"tune: the second pass {'is kept' if again['kept'] else 'is not kept'}: {goals[1]:.2f} pp beyond "
                  f"the band against {goals[0]:.2f} pp with the first pass's values ({n:,} games)")
        if again["kept"]:
            final, pruned = second, pruned + pruned_again
    _, tuned_config = write_tuned(config, final, folder, settings)
    _set_aside(folder / "compare" / "b", tuned_config, plays)
    fresh = holdout_seed(at_seed)
    plays.say(f"tune: the original and the tuned set on fresh seeds ({space.confirm_games:,} games)")
    clock = time.perf_counter()
    run_compare(config, tuned_config, folder / "compare", plays, games=space.confirm_games, seed=fresh)
    seconds["holdout (both sets, their reports, the comparison)"] = time.perf_counter() - clock
    plan = {
        "config": str(config), "seed": at_seed, "space": {"cards": list(space.cards), "fields": list(space.fields),
                                                           "range": space.range, "board": list(space.board),
                                                           "rules": list(space.rules)},
        "targets": space.targets.as_dict(),
        "changes": [[c, types[c], f, original[(c, f)], v] for (c, f), v in sorted(final.items())],
        "rounds": rounds, "responses": responses,
        "pruned": [[c, types[c], f, original[(c, f)], v] for c, f, v in pruned],
        "board": board, "second_pass": again,
        "slopes": {f"{t}.{f}": s for (t, f), s in slopes.items()},
        "unreachable": sorted(unreachable),
        "budget": {"games": space.budget_games, "minutes": space.budget_minutes, "left out": spent},
        "games_played": played, "runs": runs_played,
        "seconds": {k: round(v, 1) for k, v in seconds.items()}, "holdout": {"seed": fresh, "a": "compare/a", "b": "compare/b"},
        "tuned_config": tuned_config.name,
    }
    (folder / TUNE_FILE).write_text(json.dumps(plan, indent=1))
    return build_tune(folder)


def _set_aside(root: Path, tuned_config: Path, plays: Plays) -> None:
    """A holdout run of another tuned set (a tune run again in its folder proposing other values)
    is renamed beside it, neither resumed with the new set's games nor lost."""
    resolved = root / "resolved.json"
    if not resolved.is_file():
        return
    was = json.loads(resolved.read_text())["game"]["content_hash"]
    if was != load_run_config(tuned_config).game.content_hash:
        aside = root.with_name(f"{root.name}-{was[:10]}")
        root.rename(aside)
        plays.say(f"tune: the holdout run of an earlier proposal is kept as {aside}")


def _prune(changes, original, slopes, types, band, measure):
    """(changes, reverted): the changes without those the set does not need. The tuned set is
    measured; a change whose card is predicted within the band without it (its contrast less its
    response times the step) is a candidate; the set without every candidate is measured, and a
    candidate stays reverted when its card is then within the band at every player count (point
    estimate) and no card of its type has gone beyond the band. The holdout confirms the rest."""
    now = measure(changes)
    candidates = []
    for (name, f), v in sorted(changes.items()):
        slope = slopes.get((name, f), slopes.get((types[name], f), 0.0))
        rows = now[now["name"] == name]
        if slope and len(rows) and np.max(np.abs(rows["contrast_pp"] - slope * (v - original[(name, f)]))) <= band:
            candidates.append((name, f))
    if not candidates:
        return changes, []
    trial = {k: v for k, v in changes.items() if k not in candidates}
    after = measure(trial)

    def beyond(state):
        return set(state.loc[(state["contrast_pp_low"] > band) | (state["contrast_pp_high"] < -band), "name"])

    newly = beyond(after) - beyond(now)
    worst = after.assign(d=after["contrast_pp"].abs()).groupby("name")["d"].max()
    kept, reverted = dict(trial), []
    for name, f in candidates:
        if worst.get(name, np.inf) <= band and not any(types[c] == types[name] for c in newly):
            reverted.append((name, f, changes[(name, f)]))
        else:
            kept[(name, f)] = changes[(name, f)]
    return kept, reverted


def _responses(space, start, state, tunable, types, original, band, play):
    """Responses per unit of each field: each card's own (the paired change of its opening-hand
    effect when it alone of its type is stepped by RESPONSE_STEP), and per card type the mean of
    its cards' (over every type where a type's has the other sign). The cards beyond the band are
    measured first, one card of each type a run, in as many runs as the type with most of them
    needs (at least MIN_RESPONSE_RUNS, at most MAX_RESPONSE_RUNS)."""
    distance = state.assign(d=state["contrast_pp"].abs()).groupby("name")["d"].max()
    beyond = set(state.loc[(state["contrast_pp_low"] > band) | (state["contrast_pp_high"] < -band), "name"])
    order = sorted(distance.index, key=lambda c: (c not in beyond, -distance[c]))
    per_type: dict[str, int] = {}
    for c in beyond & set(tunable):
        per_type[types[c]] = per_type.get(types[c], 0) + 1
    n_runs = min(MAX_RESPONSE_RUNS, max([MIN_RESPONSE_RUNS] + list(per_type.values())))
    slopes, runs = {}, []
    for f in space.fields:
        own: dict[str, float] = {}
        for k in range(n_runs):
            picked = {}
            for t in sorted({types[c] for c in tunable if f in tunable[c]}):
                of_type = [c for c in order if types.get(c) == t and f in tunable.get(c, ())]
                if len(of_type) > k:
                    picked[of_type[k]] = original[(of_type[k], f)] + RESPONSE_STEP
            if not picked:
                continue
            root = play({(c, f): v for c, v in picked.items()})
            diff = effect_changes(start, root)
            for c in picked:
                own[c] = float(diff.loc[diff["name"] == c, "open_hand_win_pp_diff"].mean()) / RESPONSE_STEP
            runs.append({"field": f, "cards": sorted(picked), "run": root.parent.name + "/" + root.name})
        pooled = float(np.mean(list(own.values()))) if own else 0.0
        for t in {types[c] for c in own}:
            mean = float(np.mean([v for c, v in own.items() if types[c] == t]))
            slopes[(t, f)] = mean if np.sign(mean) == np.sign(pooled) and mean != 0 else pooled
        for c, v in own.items():
            typed = slopes[(types[c], f)]
            # a card's own response, kept to its type's sign and within 3x either way of it
            if typed and np.sign(v) == np.sign(typed):
                slopes[(c, f)] = float(np.clip(abs(v), abs(typed) / 3, abs(typed) * 3)) * np.sign(typed)
    return slopes, runs


def _step(name, rows, fields, changes, original, slopes, card_type, space, band):
    """((card, field), new value, whether it is predicted within the band) for a card beyond the
    band. Fields in preference order: the one it already moves in, then the space's order; the
    first field with a value predicted within the band takes the smallest move predicted within
    AIM x the band, else its value predicted nearest zero; if no field reaches the band, the move
    predicted nearest zero over every field. The response is the card's own (secant, `slopes[(card, field)]`) once it
    has moved, else its type's. None if no field has a usable response."""
    moved = [f for f in fields if (name, f) in changes]
    contrast = rows["contrast_pp"].to_numpy()
    options = []
    for f in moved + [f for f in fields if f not in moved]:
        slope = slopes.get((name, f), slopes.get((card_type, f), 0.0))
        if slope == 0 or not np.isfinite(slope):
            continue
        now = changes.get((name, f), original[(name, f)])
        values = range(max(TUNE_FIELDS[f], original[(name, f)] - space.range), original[(name, f)] + space.range + 1)
        if (name, f) in changes:  # a card that has moved steps one unit a round: no oscillation
            values = [v for v in values if abs(v - now) <= 1]
        predicted = {v: float(np.max(np.abs(contrast + slope * (v - now)))) for v in values}
        options.append((f, now, predicted))
    for f, now, predicted in options:  # the preferred field that reaches the band, if any
        aimed = [v for v, x in predicted.items() if x <= AIM * band]
        if aimed:
            return (name, f), min(aimed, key=lambda v: abs(v - now)), True
        inside = [v for v, x in predicted.items() if x <= band]
        if inside:
            return (name, f), min(inside, key=lambda v: (predicted[v], abs(v - now))), True
    if not options:
        return None
    f, v, x = min(((f, v, x) for f, now, predicted in options for v, x in predicted.items()),
                  key=lambda t: t[2])
    return (name, f), v, x <= band
