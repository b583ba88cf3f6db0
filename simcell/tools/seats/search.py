"""`simcell seats`' search: the starting-ATP schedule (ATP by seat) that brings every seat's win
share nearest the fair share, proposed by the shared search (tools/search.py) and played by the
caller on the same games."""

from __future__ import annotations

from collections.abc import Callable

from simcell.tools.search import search_values

MAX_ATP = 10  # the largest starting ATP a seat is offered


def search_starting_atp(evaluate: Callable[[tuple[int, ...]], float], start: tuple[int, ...],
                        trials: int, seed: int) -> list[tuple[tuple[int, ...], float]]:
    """Starting-ATP schedules tried and their objectives, best first. The config's schedule and a
    flat one at its mean are tried first; every value stays within 0..MAX_ATP."""
    flat = round(sum(start) / len(start))
    names = [f"seat_{s}" for s in range(len(start))]
    tried = search_values(lambda v: evaluate(tuple(v[n] for n in names)),
                          {n: (0, MAX_ATP) for n in names},
                          [dict(zip(names, start)), dict.fromkeys(names, flat)], trials, seed)
    return [(tuple(v[n] for n in names), x) for v, x, _excess in tried]
