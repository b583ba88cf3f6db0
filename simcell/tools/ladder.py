"""The searches behind `simcell seats` and tune's board stage: the starting-ATP ladder (ATP by
seat), or any whole-number board and rule values, that bring every seat's win share nearest the
fair share. optuna's TPE sampler proposes ladders (seeded, so a
repeated search proposes the same ones and finds their runs on disk); the caller plays each on
the same games (common random numbers) and returns its objective, the worst seat's distance from
the fair share. The best ladders are then confirmed by the caller on fresh seeds."""

from __future__ import annotations

from collections.abc import Callable

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
    return [(tuple(v[n] for n in names), x) for v, x in tried]


def search_values(evaluate: Callable[[dict[str, int]], float], bounds: dict[str, tuple[int, int]],
                  first: list[dict[str, int]], trials: int, seed: int) -> list[tuple[dict[str, int], float]]:
    """Whole-number values (name -> value within its bounds) tried and their objectives, best
    first: the `first` assignments, then optuna's TPE (seeded) for the rest of `trials`; an
    assignment tried once is not played again."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed % 2**32),
                                direction="minimize")
    for values in {tuple(sorted(v.items())): v for v in first}.values():
        study.enqueue_trial(values)
    seen: dict[tuple, tuple[dict[str, int], float]] = {}

    def objective(trial: optuna.Trial) -> float:
        values = {n: trial.suggest_int(n, lo, hi) for n, (lo, hi) in bounds.items()}
        key = tuple(sorted(values.items()))
        if key not in seen:
            seen[key] = (values, evaluate(values))
        return seen[key][1]

    study.optimize(objective, n_trials=trials)
    return sorted(seen.values(), key=lambda kv: kv[1])
