"""Shortcuts the heuristic evaluator takes, and the facts they stand on: the legality generator
values each action where it lists it (kernel/legal.py phase_one_listing), and those values are
exactly the evaluator's value of each listed code, decoded (policies/heuristic.evaluate_legal);
a grey copy is valued as its own-flask twin plus grey_first, and every grey placement has its
twin n_grey places before it or none does; placements_for is the division it replaces
(policies/evaluate.py)."""

from __future__ import annotations

import dataclasses

import numpy as np

from simcell.config.load import load_default_game
from simcell.kernel.codes import code_flask, code_kind
from simcell.kernel.enums import (
    ACT_COMBO,
    ACT_EXHAUST,
    ACT_PASS,
    ACT_PLACE,
    ACT_RETURN,
    FLASK_GREY,
    LOCATION_ACTIONS,
    MAX_CARDS,
    TRACE_DECISION,
    TRACE_END,
    decode_action,
)
from simcell.kernel.jit import kernel_jit
from simcell.kernel.legal import GREY_BIT
from simcell.kernel.state import G_PHASE, G_TO_MOVE, PH_OVER
from simcell.kernel.turns import list_legal
from simcell.policies.evaluate import PER_PLACEMENT, PLACEMENTS_TABLE, placements_for
from simcell.policies.heuristic import evaluate_legal
from simcell.policies.registry import KERNEL_PLANNER
from simcell.policies.view import make_view
from simcell.runner.fields import homogeneous
from simcell.runner.games import copy_state, game_in_progress, next_decision, play_traced


@kernel_jit
def decoded_values(st, gt, legal, values, need, ws, goal_bonus):
    """The seat to move's legal actions listed alone (into legal; returns how many), then each
    code decoded and valued by the evaluator (into values)."""
    seat = st.g[G_TO_MOVE]
    m = list_legal(st, gt)
    for i in range(m):
        legal[i] = st.legal[i]
    evaluate_legal(make_view(st, seat), gt, legal, m, st.seat_params[seat],
                   st.seat_policy[seat] == KERNEL_PLANNER, values, need, ws, goal_bonus)
    return m

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
                if twins[0]:
                    assert all(twins), legal
                    copied += 1
                else:
                    assert not any(twins), legal
                    uncopied += 1
    assert copied > 100 and uncopied > 0, (copied, uncopied)  # 1,410 and 9 as written


def _kinds(codes) -> set[str]:
    """What kinds of action a legal list holds (a placement by its location's action, a grey one
    marked so)."""
    gt = _TABLES[0]
    out = set()
    for code in codes:
        kind, flask, target, *_ = decode_action(int(code))
        if kind == ACT_PLACE:
            out.add(LOCATION_ACTIONS[int(gt.loc_action[target])] + (" grey" if flask else ""))
        else:
            out.add({ACT_PASS: "pass", ACT_EXHAUST: "exhaust", ACT_RETURN: "return",
                     ACT_COMBO: "combo"}[kind])
    return out


_TABLES: list = []


def test_values_listed_with_the_actions_are_the_evaluators() -> None:
    """At every policy decision of greedy and planner games at 5, 3 and 2 players (setup
    included), the actions the turn loop valued as it listed them are the legal list, each value
    bit for bit the evaluator's value of that code decoded (the listing's sites and the decoder
    must agree on every kind of action, grey copies and grey flasks without own flasks
    included); every kind of action occurs, so each listing site is checked, and collect
    spots both where the seat has a yield bonus or the location an unclaimed location_bonus
    (valued one by one) and where neither (valued all at once, evaluate.fixed_values): the
    epigenetic variant gives yield bonuses. The turn loop
    lists and values a decision's actions before it stops for it (game_in_progress,
    next_decision), so they are in the State's legal list and policy values there."""
    base = load_default_game()
    epigenetic = dataclasses.replace(base, rules=dataclasses.replace(base.rules, epigenetic=True))
    seen: set[str] = set()
    grey_only = checked = 0
    collect = {"yield": 0, "location": 0, "none": 0}  # listed collect spots, by bonus
    for players, policy, game in [(5, "greedy", base), (3, "planner", base), (2, "greedy", base),
                                  (5, "planner", base), (4, "greedy", epigenetic)]:
        for g in range(4):
            st, gt = game_in_progress(game, players, 23, g, homogeneous(policy, players), 0)
            _TABLES[:] = [gt]
            size = st.legal.shape[0]
            legal, values = np.zeros(size, np.int64), np.zeros(size)
            scratch = (np.zeros(8), np.zeros((4, MAX_CARDS)), np.zeros(8))
            while st.g[G_PHASE] != PH_OVER:
                probe = copy_state(st)
                n = decoded_values(probe, gt, legal, values, *scratch)
                assert n > 1 and np.array_equal(st.legal[:n], legal[:n])
                listed = st.policy_values[:n]
                assert np.array_equal(listed.view(np.int64), values[:n].view(np.int64)), (
                    players, policy, g, [(hex(int(c)), a, b) for c, a, b in
                                         zip(legal[:n], listed, values[:n]) if a != b])
                kinds = _kinds(legal[:n])
                seen |= kinds
                seat = st.g[G_TO_MOVE]
                for code in legal[:n]:
                    kind, _, loc, *_ = decode_action(int(code))
                    if kind == ACT_PLACE and LOCATION_ACTIONS[int(gt.loc_action[loc])] == "collect":
                        collect["yield" if st.yield_bonus[seat, loc] else
                                "location" if st.bonus_res[loc] >= 0 else "none"] += 1
                grey_only += "pass" in kinds and any(k.endswith(" grey") for k in kinds)
                checked += 1
                next_decision(st, gt)
    expected = {"pass", "exhaust", "return", "combo"} | {
        a + grey for a in LOCATION_ACTIONS for grey in ("", " grey")}
    assert seen == expected, expected - seen
    assert grey_only >= 5 and checked > 1500, (grey_only, checked)  # 7 and 2,424 as written
    assert min(collect.values()) > 100 and collect["none"] > 1000, collect
