"""The searches behind `simcell seats` and tune's board and rules stage: the starting-ATP ladder
(ATP by seat), or any board values and rule switches, that bring every seat's win share nearest
the fair share, within the designer's other targets where there are any (constraints). optuna's
TPE sampler proposes the values (seeded, so a repeated search proposes the same ones and finds
their runs on disk); the caller plays each on the same games (common random numbers) and returns
its objective, the worst seat's distance from the fair share. The best are then confirmed by the
caller on fresh seeds."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import optuna

MAX_ATP = 10  # the largest starting ATP a seat is offered


def search_ladder(evaluate: Callable[[tuple[int, ...]], float], start: tuple[int, ...],
                  trials: int, seed: int) -> list[tuple[tuple[int, ...], float]]:
    """Ladders tried and their objectives, best first. The shipped ladder and a flat one at its
    mean are tried first; every value stays within 0..MAX_ATP."""
    flat = round(sum(start) / len(start))
    names = [f"seat_{s}" for s in range(len(start))]
    tried = search_values(lambda v: evaluate(tuple(v[n] for n in names)),
                          {n: (0, MAX_ATP) for n in names},
                          [dict(zip(names, start)), dict.fromkeys(names, flat)], trials, seed)
    return [(tuple(v[n] for n in names), x) for v, x, _excess in tried]


def search_values(evaluate: Callable[[dict], float | tuple[float, Sequence[float]]],
                  bounds: dict[str, tuple[int, int] | list], first: list[dict], trials: int, seed: int,
                  constrained: bool = False) -> list[tuple[dict, float, float]]:
    """(values, objective, excess) of every assignment tried, best first. A name's bounds are a
    whole-number range (low, high) or a list of choices (a rule's words, yes and no). The `first`
    assignments are tried first, then optuna's TPE (seeded) for the rest of `trials`; an
    assignment tried once is not played again. With `constrained`, `evaluate` returns the
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

    study.optimize(objective, n_trials=trials)
    tried = [(v, x, float(sum(max(c, 0.0) for c in limits))) for v, x, limits in seen.values()]
    return sorted(tried, key=lambda t: (t[2] > 0, t[2], t[1]))
