"""The long parity run: 100,000 kernel games replayed by the referee (2-5 players, every rule
option), field by field. Marked slow: run with `python -m pytest -m slow` before resolving a
rules change. Splits the games over every core."""

from __future__ import annotations

import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import pytest

from simcell.config.load import load_default_game

from .parity import run_parity, with_rules

SEED = 777
VARIANTS = {
    "default": {},
    "epigenetic": {"epigenetic": True},
    "limited": {"supply_limited": True},
    "grey2": {"grey_per_player": 2},
    "grey0": {"grey_per_player": 0},
    "rotate": {"turn_order": "rotate"},
    "holder-barred": {"laureates_holder_may_take": False},
    "snake-pass": {"placement_order": "snake_pass"},
    "snake-round": {"placement_order": "snake_round"},
    "laureates-once": {"laureates_once_each": True},
    "laureates-marker-only": {"laureates_marker_only": True},
    "goals-open-round-4": {"goals_open_round": 4},
    "first-marker-falling": {"first_marker_hp": (4, 2, 0)},
    "starting-hp": {"starting_hp_by_seat": (0, 1, 2, 3, 4)},
    "all-options": {"epigenetic": True, "supply_limited": True, "grey_per_player": 2,
                    "turn_order": "rotate", "laureates_holder_may_take": False,
                    "two_player_remove_detox": True},
}
PER_CASE = 100_000 // (len(VARIANTS) * 4) + 1


def _job(args: tuple[str, int, int, int]) -> tuple[list[str], Counter]:
    variant, players, start, n = args
    game = with_rules(load_default_game(), **VARIANTS[variant])
    counts: Counter = Counter()
    failures = run_parity(game, players, SEED, range(start, start + n), counts)
    return failures, counts


@pytest.mark.slow
def test_parity_over_100k_games() -> None:
    jobs = []
    step = 500
    for variant in VARIANTS:
        for players in (2, 3, 4, 5):
            for start in range(0, PER_CASE, step):
                jobs.append((variant, players, start, min(step, PER_CASE - start)))
    failures: list[str] = []
    counts: Counter = Counter()
    with ProcessPoolExecutor(os.cpu_count() or 1) as pool:
        for f, c in pool.map(_job, jobs):
            failures += f
            counts.update(c)
    print(f"\nslow parity: {dict(counts)}")
    assert counts["games"] >= 100_000
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:10])
