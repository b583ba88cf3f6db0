"""Shortcuts the heuristic evaluator takes, and the facts they stand on: a grey copy is valued
as its own-flask twin plus grey_first only where every grey placement has its twin n_grey
places before it (policies/heuristic.py, from kernel/legal.py's listing), and placements_for
is the division it replaces (policies/evaluate.py)."""

from __future__ import annotations

import numpy as np

from simcell.config.load import load_default_game
from simcell.kernel.codes import code_flask, code_kind
from simcell.kernel.enums import ACT_PLACE, FLASK_GREY, TRACE_DECISION, TRACE_END
from simcell.kernel.legal import GREY_BIT
from simcell.policies.evaluate import PER_PLACEMENT, PLACEMENTS_TABLE, placements_for
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_traced


def test_placements_for_is_the_division() -> None:
    for r, per in enumerate(PER_PLACEMENT):
        for x in range(1, PLACEMENTS_TABLE + 10):  # the table and past it
            assert placements_for(r, x) == x / per


def _legal_lists(trace: np.ndarray):
    """The legal list of every decision in a trace (automatic ones included)."""
    i = 0
    while trace[i] != TRACE_END:
        if trace[i] == TRACE_DECISION:
            n = int(trace[i + 3])
            yield [int(c) for c in trace[i + 4 : i + 4 + n]]
            i += 5 + n
        else:  # a shuffle: purpose, index, n, ids
            i += 4 + int(trace[i + 3])


def _is_grey(code: int) -> bool:
    return code_kind(code) == ACT_PLACE and code_flask(code) == FLASK_GREY


def test_grey_copies_have_their_twins_or_none_do() -> None:
    """Over greedy, random and planner games at 5, 3 and 2 players: every legal list whose first
    grey placement has its twin has a twin for each (with own flasks left), and every other has
    none (with none left); both kinds occur."""
    game = load_default_game()
    copied = uncopied = 0
    for players, policy in [(5, "greedy"), (3, "random"), (2, "planner")]:
        for g in range(12):
            trace = play_traced(game, players, 11, g, homogeneous(policy, players)).trace
            for legal in _legal_lists(trace):
                n_grey = 0
                while n_grey < len(legal) and _is_grey(legal[-1 - n_grey]):
                    n_grey += 1
                if n_grey == 0:
                    continue
                first = len(legal) - n_grey
                twins = [i - n_grey >= 0 and legal[i - n_grey] == legal[i] ^ int(GREY_BIT)
                         for i in range(first, len(legal))]
                if twins[0]:  # the evaluator tests the first only
                    assert all(twins), legal
                    copied += 1
                else:
                    assert not any(twins), legal
                    uncopied += 1
    assert copied > 100 and uncopied > 0, (copied, uncopied)  # 1,410 and 9 as written
