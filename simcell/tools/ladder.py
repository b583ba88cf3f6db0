"""The search behind `simcell seats`: the starting-ATP ladder (ATP by seat) that brings every
seat's win share nearest the fair share. optuna's TPE sampler proposes ladders (seeded, so a
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
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed % 2**32),
                                direction="minimize")
    flat = round(sum(start) / len(start))
    for ladder in dict.fromkeys([tuple(start), (flat,) * len(start)]):
        study.enqueue_trial({f"seat_{s}": v for s, v in enumerate(ladder)})
    seen: dict[tuple[int, ...], float] = {}

    def objective(trial: optuna.Trial) -> float:
        ladder = tuple(trial.suggest_int(f"seat_{s}", 0, MAX_ATP) for s in range(len(start)))
        if ladder not in seen:
            seen[ladder] = evaluate(ladder)
        return seen[ladder]

    study.optimize(objective, n_trials=trials)
    return sorted(seen.items(), key=lambda kv: kv[1])
