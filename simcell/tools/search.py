"""The search behind `simcell seats` and tune's board and rules stage: the values (the starting-ATP
schedule, or any board values and rule switches) that bring every seat's win share nearest the
fair share, within the designer's other targets where there are any (constraints). optuna's
TPE sampler proposes the values (seeded, so a repeated search proposes the same ones and finds
their runs on disk); the caller plays each on the same games (common random numbers) and returns
its objective, the worst seat's distance from the fair share. The best are then confirmed by the
caller on fresh seeds."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np
import optuna

MAX_PROPOSALS = 3  # trials per assignment to play, at most (a repeat is followed by a new one)


def search_values(evaluate: Callable[[dict], float | tuple[float, Sequence[float]]],
                  bounds: dict[str, tuple[int, int] | list], first: list[dict], trials: int, seed: int,
                  constrained: bool = False) -> list[tuple[dict, float, float]]:
    """(values, objective, excess) of every assignment tried, best first. A name's bounds are a
    whole-number range (low, high) or a list of choices (a rule's words, yes and no). The `first`
    assignments are tried first, then optuna's TPE (seeded) for the rest of `trials` (distinct
    assignments, or every one of a smaller space); an assignment tried once is not played again. With `constrained`, `evaluate` returns the
    objective and constraints (each met when <= 0): TPE learns where they are met, and the
    assignments meeting them all rank first, the rest by their summed excess."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():  # constraints_func is marked experimental in optuna 4
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(
            seed=seed % 2**32,
            constraints_func=(lambda t: t.user_attrs["constraints"]) if constrained else None)
    study = optuna.create_study(sampler=sampler, direction="minimize")
    for values in {tuple(sorted(v.items())): v for v in first}.values():
        study.enqueue_trial(values)
    seen: dict[tuple, tuple[dict, float, tuple[float, ...]]] = {}

    def objective(trial: optuna.Trial) -> float:
        values = {n: trial.suggest_int(n, *b) if isinstance(b, tuple) else trial.suggest_categorical(n, b)
                  for n, b in bounds.items()}
        key = tuple(sorted(values.items()))
        if key not in seen:
            out = evaluate(values)
            x, limits = out if constrained else (out, ())
            seen[key] = (values, float(x), tuple(float(c) for c in limits))
        trial.set_user_attr("constraints", list(seen[key][2]))
        return seen[key][1]

    # TPE proposes assignments it has played again, and in a small space can keep to them:
    # `trials` counts the assignments played (up to the size of the space), and after a repeat the
    # next trial is an assignment not yet played, drawn at random (seeded)
    size = math.prod(len(b) if isinstance(b, list) else b[1] - b[0] + 1 for b in bounds.values())
    rng = np.random.default_rng(seed)
    for _ in range(MAX_PROPOSALS * trials):
        if len(seen) >= min(trials, size):
            break
        played = len(seen)
        study.optimize(objective, n_trials=1)
        if len(seen) == played:
            study.enqueue_trial(_unplayed(bounds, seen, rng))
    tried = [(v, x, float(sum(max(c, 0.0) for c in limits))) for v, x, limits in seen.values()]
    return sorted(tried, key=lambda t: (t[2] > 0, t[2], t[1]))


def _unplayed(bounds: dict, seen: dict, rng: np.random.Generator) -> dict:
    """An assignment not yet played, uniformly at random: drawn until new (the space is larger
    than the trials, so this ends quickly), or from every unplayed one when few are left."""
    options = {n: list(b) if isinstance(b, list) else list(range(b[0], b[1] + 1)) for n, b in bounds.items()}
    names = list(options)

    def pick(choice):
        return {n: options[n][i] for n, i in zip(names, choice)}

    for _ in range(1000):
        values = pick([int(rng.integers(len(options[n]))) for n in names])
        if tuple(sorted(values.items())) not in seen:
            return values
    left = [c for c in itertools.product(*(range(len(options[n])) for n in names))
            if tuple(sorted(pick(c).items())) not in seen]
    return pick(left[int(rng.integers(len(left)))])
