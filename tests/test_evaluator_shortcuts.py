"""Shortcuts the heuristic evaluator takes, and the facts they stand on: the legality generator
values each action where it lists it (kernel/legal.py phase_one_listing), and those values are
exactly the evaluator's value of each listed code, decoded (tests/support/reference.evaluate_legal);
a grey copy is valued as its own-flask twin plus grey_first, and every grey placement has its
twin n_grey places before it or none does; placements_for is the division it replaces
(policies/evaluate.py); the card route tables (GameTables.card_plan, card_match) that spare the
evaluator its branches on a card's type give the type-by-type reading of each card's route."""

from __future__ import annotations

import dataclasses

import numpy as np

from simcell.config.load import load_default_game
from simcell.kernel.codes import code_flask, code_kind
from simcell.vocabulary import (
    ACT_COMBO,
    ATP,
    CARB,
    CARD_TYPES,
    LIPID,
    MRNA,
    PROTEIN,
    ACT_EXHAUST,
    ACT_PASS,
    ACT_PLACE,
    ACT_RETURN,
    FLASK_GREY,
    LOCATION_ACTIONS,
    MAX_CARDS,
    TRACE_DECISION,
    TRACE_END,
    VESICLE_TYPES,
    decode_action,
)
from simcell.kernel.jit import kernel_jit
from simcell.kernel.legal import GREY_BIT
from simcell.kernel.state import G_PHASE, G_TO_MOVE, PH_OVER
from simcell.play.turns import list_legal
from simcell.policies.evaluate import (
    PER_PLACEMENT,
    PLACEMENTS_TABLE,
    WS_STAGE,
    add_card_need,
    completion_hp,
    goal_bonuses,
    placements_for,
    placements_to_complete,
)
from simcell.policies.registry import KERNEL_PLANNER
from simcell.policies.view import make_view
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_traced
from tests.support.reference import evaluate_legal
from tests.support.stepping import copy_state, game_in_progress, next_decision


@kernel_jit
def decoded_values(st, gt, legal, values, need, ws, goal_bonus):
    """The seat to move's legal actions listed alone (into legal; returns how many), then each
    code decoded and valued by the evaluator (into values)."""
    seat = st.g[G_TO_MOVE]
    m = list_legal(st, gt)
    for i in range(m):
        legal[i] = st.workspace.legal[i]
    evaluate_legal(make_view(st, seat), gt, legal, m, st.seating.params[seat],
                   st.seating.policy[seat] == KERNEL_PLANNER, values, need, ws, goal_bonus)
    return m

@kernel_jit
def route_readings(st, gt, seat, card, stage, ws, goal_bonus, need):
    """What the evaluator reads of `card` for `seat` with its vesicle at `stage`: the placements
    still needed, the completion HP, and (into need) what it still takes from stock."""
    v = make_view(st, seat)
    goal_bonuses(v, gt, goal_bonus)
    ws[WS_STAGE, card] = stage
    for r in range(5):
        need[r] = 0.0
    add_card_need(v, gt, ws, card, 1.0, need)
    return placements_to_complete(v, gt, card, True, stage), completion_hp(v, gt, goal_bonus, card)


def _route_by_type(gt, st, seat, card, stage, goal_bonus):
    """The same three readings worked out type by type, in plain Python, in the order the
    evaluator adds them (so equal to the bit)."""
    t = CARD_TYPES[gt.card_type[card]]
    stock = st.stock[seat]
    need = [0.0] * 5
    if t == "additional_resource":
        return None, None, need
    atp = max(int(gt.card_atp[card]) - int(st.discount[seat, gt.card_type[card]]), 0)
    need[ATP] += atp
    miss = 0.0
    if atp - stock[ATP] > 0:
        miss += (atp - stock[ATP]) / PER_PLACEMENT[ATP]
    if t in ("enzyme", "detox"):
        n = 1.0
        if t == "enzyme":
            need[PROTEIN] += gt.card_protein[card]
            need[CARB] += gt.card_carb[card]
            if gt.card_protein[card] - stock[PROTEIN] > 0:
                miss += (gt.card_protein[card] - stock[PROTEIN]) / PER_PLACEMENT[PROTEIN] + 1.0
            if gt.card_carb[card] - stock[CARB] > 0:
                miss += (gt.card_carb[card] - stock[CARB]) / PER_PLACEMENT[CARB]
    else:  # a hormone or receptor: ER, Golgi, Exocytosis
        n = 3.0 - stage
        steroid = t == "steroid_hormone"
        if stage < 2:
            res = CARB if gt.card_golgi[card] == 0 else LIPID
            need[res] += 1.0
            if stock[res] < 1:
                miss += 1 / PER_PLACEMENT[res]
        if stage < 1:
            res = LIPID if steroid else MRNA
            load = gt.card_lipid[card] if steroid else gt.card_protein[card]
            need[res] += load
            if load - stock[res] > 0:
                miss += (load - stock[res]) / PER_PLACEMENT[res]
    hp = float(gt.card_hp[card])
    done = int(st.completed[seat])
    hand = int(st.hand[seat])
    partner = {"protein_receptor": "protein_hormone", "steroid_receptor": "steroid_hormone"}

    def in_hand(kind):
        return sum(1 for c in range(64) if hand >> c & 1 and gt.card_in_game[c]
                   and CARD_TYPES[gt.card_type[c]] == kind)

    if t in partner:  # each completed hormone of its kind, and half of each in hand
        hp += int(gt.card_bonus[card]) * (int(st.completed_by_type[seat, CARD_TYPES.index(partner[t])])
                                          + 0.5 * in_hand(partner[t]))
    for receptor, hormone in partner.items():
        if t == hormone:  # each completed receptor of its kind's bonus (those in hand: the receptor's)
            for c in range(64):
                if done >> c & 1 and CARD_TYPES[gt.card_type[c]] == receptor:
                    hp += gt.card_bonus[c]
    hp += goal_bonus[gt.card_type[card]]
    if st.completed_by_type[seat, gt.card_type[card]] == 0:
        hp += goal_bonus[6]
    return n + miss, hp, need


def test_card_route_tables_give_the_type_by_type_reading() -> None:
    """For every card of the shipped set (all seven types, both Golgi resources), each vesicle
    stage of a hormone or receptor (a card without a vesicle is always at stage 0), and random stocks, completion discounts, completed cards and goal marks: the
    placements still needed, the completion HP and the needs the evaluator works out from the
    route tables are, to the bit, those of the type-by-type reading of docs/rules.md's routes."""
    game = load_default_game()
    st, gt = game_in_progress(game, 5, 23, 0, homogeneous("greedy", 5), 40)
    rng = np.random.default_rng(5)
    ws = np.zeros((4, MAX_CARDS))
    goal_bonus = np.zeros(8)
    need = np.zeros(8)
    cards = [c for c in range(gt.n_ids) if gt.card_in_game[c]]
    types_seen = set()
    for _ in range(60):
        seat = int(rng.integers(5))
        st.stock[seat] = rng.integers(0, 7, 5)
        st.discount[seat] = rng.integers(0, 2, st.discount.shape[1])
        st.completed_by_type[seat] = rng.integers(0, 3, st.completed_by_type.shape[1])
        st.completed[seat] = np.int64(sum(1 << c for c in cards if c < 63 and rng.random() < 0.3))
        st.hand[seat] = np.int64(sum(1 << c for c in cards if c < 63 and rng.random() < 0.15))
        st.goal_mark[:, seat] = rng.integers(0, 2, st.goal_mark.shape[0])
        for card in cards:
            vesicle = CARD_TYPES[gt.card_type[card]] in VESICLE_TYPES
            for stage in (0, 1, 2) if vesicle else (0,):  # a card without a vesicle is at 0
                todo, hp = route_readings(st, gt, seat, card, float(stage), ws, goal_bonus, need)
                want_todo, want_hp, want_need = _route_by_type(gt, st, seat, card, stage, goal_bonus)
                assert list(need[:5]) == want_need, (card, stage)
                if want_todo is not None:
                    types_seen.add(CARD_TYPES[gt.card_type[card]])
                    assert todo == want_todo and hp == want_hp, (card, stage, todo, want_todo, hp, want_hp)
    assert len(types_seen) == 6 and goal_bonus.any()


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
    (valued one by one) and where neither (valued all at once, values.fixed_values): the
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
            size = st.workspace.legal.shape[0]
            legal, values = np.zeros(size, np.int64), np.zeros(size)
            scratch = (np.zeros(8), np.zeros((4, MAX_CARDS)), np.zeros(8))
            while st.g[G_PHASE] != PH_OVER:
                probe = copy_state(st)
                n = decoded_values(probe, gt, legal, values, *scratch)
                assert n > 1 and np.array_equal(st.workspace.legal[:n], legal[:n])
                listed = st.workspace.values[:n]
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
