"""Hand-built scenarios of the numba kernel, one rules example per test (docs/rules.md §1-§10).

Each test starts from a real setup of the shipped game (`scenario`), wiped to a blank table:
round 1, Phase 1, seat 0 to move and holding the First Player Marker, nobody holding resources,
cards, HP or vesicles. The test then sets the situation it needs directly in the State arrays,
asks the kernel for the legal actions, applies actions, and compares the arrays with values
written out by hand.

Reading aid: `R(mrna, protein, carb, lipid, atp)` is a resource vector in the kernel's column
order; `options(st, gt, seat, "loc")` lists the (p1, p2, p3) parameters of the legal placements at
a location (vocabulary.py documents what p1..p3 mean per location); the deck is written top first.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from simcell.config.arrays import build_tables
from simcell.config.load import load_default_game
from simcell.kernel.actions import apply_phase_one
from simcell.kernel.chance import keyed_shuffle, stream_key
from simcell.vocabulary import (
    ACT_EXHAUST,
    ACT_PASS,
    ACT_PLACE,
    ATP,
    CARB,
    CHANCE_RESHUFFLE,
    COMPLETED_TYPES,
    DETOX,
    ENZYME,
    FLASK_GREY,
    FLASK_OWN,
    GOLGI_CARB,
    GOLGI_LIPID,
    LIPID,
    MRNA,
    ORG_GOLGI,
    ORG_ROUGH,
    ORG_SMOOTH,
    PROTEIN,
    PROTEIN_HORMONE,
    PROTEIN_RECEPTOR,
    SOURCE_RADIX,
    SRC_EVENT,
    SRC_GOAL_BONUS,
    SRC_GOAL_MARKER,
    SRC_RECEPTOR_BONUS,
    SRC_START,
    STEROID_HORMONE,
    STEROID_RECEPTOR,
    decode_action,
    encode_action,
    flow_row_names,
)
from simcell.kernel.legal import phase_one_legal
from simcell.kernel.rounds import phase_two, refresh_card_area, resolve_event
from simcell.kernel.scoring import end_game, final_scores
from simcell.kernel.setup import apply_combo, apply_return, reset_state, setup_game
from simcell.kernel.state import (
    G_DECK_N,
    G_DISCARD_N,
    G_DISCOUNT,
    G_EVENT_N,
    G_EVENT_NEXT,
    G_GREY_LEFT,
    G_MARKER,
    G_PHASE,
    G_RESHUFFLES,
    G_ROUND,
    G_ROUND_HOLDER,
    G_TO_MOVE,
    NO_GOLGI,
    PH_COMBO,
    PH_OVER,
    PH_PLACE,
    PH_RETURN,
    new_state,
)

GAME = load_default_game()
LOCS = tuple(loc.id for loc in GAME.board.locations)
LOC = {name: i for i, name in enumerate(LOCS)}
FLOW = {name: i for i, name in enumerate(flow_row_names(LOCS))}
EVENT = {ev.name: i for i, ev in enumerate(GAME.events)}  # data position of each event
GOAL = {goal.name: i for i, goal in enumerate(GAME.goals)}  # data position of each goal
SEED = 1

_TABLES: dict = {}


def tables(players: int, **rules):
    """GameTables of the shipped game with rule switches changed (built directly, not cached
    by the runner, so variants never share tables)."""
    key = (players, tuple(sorted(rules.items())))
    if key not in _TABLES:
        game = dataclasses.replace(GAME, rules=dataclasses.replace(GAME.rules, **rules))
        _TABLES[key] = build_tables(game, players)
    return _TABLES[key]


# -- reading aids ----------------------------------------------------------------------------
def R(mrna=0, protein=0, carb=0, lipid=0, atp=0) -> list[int]:
    """A resource vector in the kernel's order (mRNA, Protein, Carbohydrate, Lipid, ATP)."""
    return [mrna, protein, carb, lipid, atp]


def mask(*cards: int) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def place(loc: str, p1: int = 0, p2: int = 0, p3: int = 0, grey: bool = False) -> int:
    return encode_action(ACT_PLACE, FLASK_GREY if grey else FLASK_OWN, LOC[loc], p1, p2, p3)


def exhaust(resource: int) -> int:
    return encode_action(ACT_EXHAUST, p1=resource)


PASS = encode_action(ACT_PASS)


def first_spot(gt, loc: str) -> int:
    return int(gt.loc_first_spot[LOC[loc]])


def flow(st, seat: int, row: str) -> list[int]:
    return st.flows[seat, FLOW[row]].tolist()


def vesicle(st, org: int, idx: int) -> tuple[int, int, int, int]:
    """(owner, origin, ER load, Golgi resource) of a budding location."""
    return (
        int(st.ves_owner[org, idx]),
        int(st.ves_origin[org, idx]),
        int(st.ves_load[org, idx]),
        int(st.ves_golgi[org, idx]),
    )


EMPTY = (-1, 0, 0, NO_GOLGI)


def put_vesicle(st, org, idx, owner, origin, load, golgi=NO_GOLGI) -> None:
    """One of `owner`'s disks goes from its reserve to a budding location."""
    st.ves_owner[org, idx] = owner
    st.ves_origin[org, idx] = origin
    st.ves_load[org, idx] = load
    st.ves_golgi[org, idx] = golgi
    st.disks_free[owner] -= 1


def sync_supply(st, gt) -> None:
    """Supply = component count - every personal stock - all cargo (docs/rules.md §10)."""
    supply = gt.supply.astype(np.int64) - st.stock.sum(axis=0)
    for org in range(3):
        for i in range(gt.budding[org]):
            if st.ves_owner[org, i] >= 0:
                supply[PROTEIN if st.ves_origin[org, i] == ORG_ROUGH else LIPID] -= st.ves_load[org, i]
                if st.ves_golgi[org, i] != NO_GOLGI:
                    supply[CARB if st.ves_golgi[org, i] == GOLGI_CARB else LIPID] -= 1
    st.supply[:] = supply


def set_deck(st, top_first: list[int]) -> None:
    n = len(top_first)
    st.deck[:n] = list(reversed(top_first))  # stored bottom first: the top is deck[n - 1]
    st.g[G_DECK_N] = n


def deck(st) -> list[int]:
    n = int(st.g[G_DECK_N])
    return [int(c) for c in st.deck[:n][::-1]]


def set_discard(st, cards: list[int]) -> None:
    st.discard[: len(cards)] = cards
    st.g[G_DISCARD_N] = len(cards)


def discard(st) -> list[int]:
    return [int(c) for c in st.discard[: int(st.g[G_DISCARD_N])]]


def complete(st, seat: int, *cards: int) -> None:
    """Record cards as completed by `seat` (for end-of-game scoring; no HP booked)."""
    for c in cards:
        st.completed[seat] |= 1 << c
        st.completed_by_type[seat, COMPLETED_TYPES.index(GAME.cards[c].type)] += 1


# -- the kernel, seen from one seat -----------------------------------------------------------
def legal(st, gt, seat: int) -> list[int]:
    st.g[G_TO_MOVE] = seat
    n = phase_one_legal(st, gt)
    codes = [int(c) for c in st.workspace.legal[:n]]
    assert codes == sorted(codes) and len(set(codes)) == n  # ascending, no duplicates
    return codes


def options(st, gt, seat: int, loc: str, grey: bool = False) -> list[tuple[int, int, int]]:
    """Parameters (p1, p2, p3) of the seat's legal placements at a location."""
    flask = FLASK_GREY if grey else FLASK_OWN
    out = []
    for code in legal(st, gt, seat):
        kind, f, target, p1, p2, p3 = decode_action(code)
        if kind == ACT_PLACE and f == flask and target == LOC[loc]:
            out.append((p1, p2, p3))
    return out


def grey_codes(codes: list[int]) -> list[int]:
    return [c for c in codes if decode_action(c)[0] == ACT_PLACE and decode_action(c)[1] == FLASK_GREY]


def play(st, gt, seat: int, code: int) -> None:
    """The seat takes a legal action (the kernel then passes the turn)."""
    assert code in legal(st, gt, seat), decode_action(code)
    st.g[G_TO_MOVE] = seat
    apply_phase_one(st, gt, code)


def finish_round(st, gt) -> None:
    """Everyone exhausts its remaining flasks for ATP and passes: Phase 2 runs."""
    r = int(st.g[G_ROUND])
    while st.g[G_PHASE] == PH_PLACE and st.g[G_ROUND] == r:
        seat = int(st.g[G_TO_MOVE])
        play(st, gt, seat, exhaust(ATP) if st.own_left[seat] > 0 else PASS)


def scenario(players: int = 2, seed: int = SEED, **rules):
    """Round 1, Phase 1, seat 0 to move, after a real setup (every seat returns its lowest card
    and takes ATP+ATP), wiped to a blank table: no resources, hands, HP, completed or bought
    cards, flows; empty discard pile; supply = component counts."""
    gt = tables(players, **rules)
    st = new_state(gt, 0)
    reset_state(st, gt, seed, 0, False)
    setup_game(st, gt)
    for _ in range(players):
        h = int(st.hand[int(st.g[G_TO_MOVE])])
        apply_return(st, gt, (h & -h).bit_length() - 1)
    for _ in range(players):
        apply_combo(st, gt, 0)
    assert st.g[G_ROUND] == 1 and st.g[G_PHASE] == PH_PLACE and st.g[G_TO_MOVE] == 0
    for arr in (st.stock, st.hp, st.hand, st.bought, st.completed, st.completed_by_type,
                st.flows, st.shortfall, st.peak):
        arr[:] = 0
    st.g[G_DISCARD_N] = 0
    sync_supply(st, gt)
    return st, gt


# =============================================================================================
# §3 Collect spots
# =============================================================================================
def test_collect_spot_gains_its_yield_and_is_taken_for_the_round():
    st, gt = scenario()
    assert options(st, gt, 0, "nucleus") == [(0, 0, 0), (1, 0, 0)]
    play(st, gt, 0, place("nucleus", 0))  # Nucleus a: +3 mRNA
    assert st.stock[0].tolist() == R(mrna=3)
    assert flow(st, 0, "gain_spot_nucleus") == R(mrna=3)
    assert st.spot_occ[first_spot(gt, "nucleus")] == 0
    assert st.own_left[0] == 3 and st.placements[0, LOC["nucleus"]] == 1
    assert st.g[G_TO_MOVE] == 1
    # one flask per spot: seat 1 has only Nucleus b left
    assert options(st, gt, 1, "nucleus") == [(1, 0, 0)]
    play(st, gt, 1, place("nucleus", 1))
    assert st.stock[1].tolist() == R(mrna=2)
    assert options(st, gt, 0, "nucleus") == []


def test_cost_spot_is_legal_only_with_its_cost_in_stock():
    st, gt = scenario()
    st.stock[0] = R(atp=1)
    assert options(st, gt, 0, "glucose_transporter") == [(0, 0, 0)]  # b costs 2 ATP
    assert options(st, gt, 0, "mitochondria") == [(0, 0, 0), (1, 0, 0)]  # c costs 1 Carb
    st.stock[0] = R(carb=1, atp=2)
    assert options(st, gt, 0, "glucose_transporter") == [(0, 0, 0), (1, 0, 0)]
    play(st, gt, 0, place("glucose_transporter", 1))  # pay 2 ATP, +2 Carbohydrate
    assert st.stock[0].tolist() == R(carb=3)
    assert flow(st, 0, "spend_spot_glucose_transporter") == R(atp=2)
    assert flow(st, 0, "gain_spot_glucose_transporter") == R(carb=2)
    assert options(st, gt, 0, "mitochondria") == [(0, 0, 0), (1, 0, 0), (2, 0, 0)]
    play(st, gt, 0, place("mitochondria", 2))  # pay 1 Carbohydrate, +6 ATP
    assert st.stock[0].tolist() == R(carb=2, atp=6)
    assert flow(st, 0, "spend_spot_mitochondria") == R(carb=1)


# =============================================================================================
# §3 Free Ribosome
# =============================================================================================
def test_free_ribosome_trades_k_mrna_for_k_protein():
    st, gt = scenario()
    st.stock[0] = R(mrna=3, protein=1)
    assert options(st, gt, 0, "free_ribosome") == [(1, 0, 0), (2, 0, 0), (3, 0, 0)]
    play(st, gt, 0, place("free_ribosome", 2))
    assert st.stock[0].tolist() == R(mrna=1, protein=3)
    assert flow(st, 0, "spend_spot_free_ribosome") == R(mrna=2)
    assert flow(st, 0, "gain_spot_free_ribosome") == R(protein=2)
    # identical spots: the lowest free one is taken
    fr = first_spot(gt, "free_ribosome")
    assert st.spot_occ[fr : fr + 2].tolist() == [0, -1]
    # no mRNA, no trade
    assert options(st, gt, 1, "free_ribosome") == []
    st.stock[1] = R(mrna=1)
    play(st, gt, 1, place("free_ribosome", 1))
    assert st.spot_occ[fr : fr + 2].tolist() == [0, 1]
    assert options(st, gt, 0, "free_ribosome") == []  # both spots taken


def test_free_ribosome_k_is_bounded_by_max_batch():
    st, gt = scenario()
    st.stock[0] = R(mrna=15)
    assert options(st, gt, 0, "free_ribosome") == [(k, 0, 0) for k in range(1, 13)]


# =============================================================================================
# §3 Card Area
# =============================================================================================
def test_card_area_purchase_pays_the_price_and_leaves_the_slot_empty_until_phase_two():
    st, gt = scenario()
    st.slot_card[:] = [0, 10, 36, 26]
    st.stock[0] = R(atp=2)
    assert options(st, gt, 0, "card_area") == [(0, 0, 0), (1, 0, 0), (2, 0, 0)]  # slot 3 costs 3
    play(st, gt, 0, place("card_area", 2))
    assert st.stock[0].tolist() == R()
    assert st.hand[0] == mask(36) and st.bought[0] == mask(36)
    assert flow(st, 0, "spend_card_price") == R(atp=2)
    assert st.slot_card.tolist() == [0, 10, -1, 26]
    assert st.spot_occ[first_spot(gt, "card_area") + 2] == 0
    st.stock[1] = R(atp=5)
    assert options(st, gt, 1, "card_area") == [(0, 0, 0), (1, 0, 0), (3, 0, 0)]
    play(st, gt, 1, place("card_area", 0))  # the leftmost card is free
    assert st.stock[1].tolist() == R(atp=5) and st.hand[1] == mask(0)
    play(st, gt, 0, exhaust(ATP))
    assert st.slot_card.tolist() == [-1, 10, -1, 26]  # still empty in Phase 1


def test_additional_resource_bought_is_gained_at_once_and_discarded():
    st, gt = scenario()
    st.slot_card[:] = [0, 33, 36, 26]  # 33 Lipid Droplet: +3 Lipid
    st.stock[0] = R(atp=1)
    play(st, gt, 0, place("card_area", 1))
    assert st.stock[0].tolist() == R(lipid=3)
    assert flow(st, 0, "gain_additional_resource") == R(lipid=3)
    assert flow(st, 0, "spend_card_price") == R(atp=1)
    assert st.hand[0] == 0  # never stays in a hand
    assert st.bought[0] == mask(33)
    assert st.completed[0] == 0 and st.completed_by_type[0].sum() == 0
    assert discard(st) == [33]
    assert st.slot_card.tolist() == [0, -1, 36, 26]


# =============================================================================================
# §3-4 Completing cards: Cytoplasm, Detoxification
# =============================================================================================
def test_cytoplasm_completes_an_enzyme_paying_from_stock():
    st, gt = scenario()
    st.hand[0] = mask(0, 1, 9)  # Amylase 1A 2P; Lactase 1A 2P 1C; ATP Synthase 3A 5P 2C
    st.stock[0] = R(protein=2, atp=1)
    assert options(st, gt, 0, "cytoplasm") == [(0, 0, 0)]
    st.stock[0] = R(protein=2, carb=1, atp=1)
    assert options(st, gt, 0, "cytoplasm") == [(0, 0, 0), (1, 0, 0)]
    play(st, gt, 0, place("cytoplasm", 1))
    assert st.stock[0].tolist() == R()
    assert st.hand[0] == mask(0, 9) and st.completed[0] == mask(1)
    assert st.completed_by_type[0, ENZYME] == 1
    assert st.hp[0, ENZYME] == 3 and st.hp[0].sum() == 3
    assert flow(st, 0, "spend_completion_enzyme") == R(protein=2, carb=1, atp=1)


def test_detoxification_completes_a_detox_card_for_its_atp():
    st, gt = scenario()
    st.hand[0] = mask(36, 38, 41)  # ATP 1, 2 and 0
    st.stock[0] = R(atp=1)
    assert options(st, gt, 0, "detoxification") == [(36, 0, 0), (41, 0, 0)]
    play(st, gt, 0, place("detoxification", 36))
    assert st.stock[0].tolist() == R()
    assert st.hand[0] == mask(38, 41) and st.completed[0] == mask(36)
    assert st.hp[0, DETOX] == 1 and st.completed_by_type[0, DETOX] == 1
    assert flow(st, 0, "spend_completion_detox") == R(atp=1)


def test_no_card_no_completion_placement():
    st, gt = scenario()
    st.stock[0] = R(mrna=9, protein=9, carb=9, lipid=9, atp=9)
    st.hand[0] = mask(10, 26)  # hormones only: no Enzyme, no Detoxification card
    assert options(st, gt, 0, "cytoplasm") == []
    assert options(st, gt, 0, "detoxification") == []
    assert options(st, gt, 0, "exocytosis") == []  # no vesicle at the Golgi


# =============================================================================================
# §3 Vesicles: Rough ER, Steroid Synthesis, Golgi, Exocytosis
# =============================================================================================
def test_rough_er_places_a_vesicle_loaded_with_k_protein_for_k_mrna():
    st, gt = scenario()
    st.stock[0] = R(mrna=3, protein=5)
    assert options(st, gt, 0, "rough_er") == [(1, 0, 0), (2, 0, 0), (3, 0, 0)]
    play(st, gt, 0, place("rough_er", 2))
    assert st.stock[0].tolist() == R(mrna=1, protein=5)  # personal Protein is never loaded
    assert vesicle(st, ORG_ROUGH, 0) == (0, ORG_ROUGH, 2, NO_GOLGI)
    assert st.disks_free[0] == 1
    assert flow(st, 0, "spend_spot_rough_er") == R(mrna=2)
    assert flow(st, 0, "cargo_loaded") == R(protein=2)
    assert flow(st, 0, "gain_spot_rough_er") == R()
    # Protein alone does not allow the Rough ER: only mRNA traded there becomes cargo
    st.stock[1] = R(protein=5)
    assert options(st, gt, 1, "rough_er") == []
    st.stock[1] = R(mrna=1)
    play(st, gt, 1, place("rough_er", 1))
    assert vesicle(st, ORG_ROUGH, 1) == (1, ORG_ROUGH, 1, NO_GOLGI)  # lowest free location


def test_er_needs_a_free_disk():
    st, gt = scenario()
    put_vesicle(st, ORG_GOLGI, 0, 0, ORG_ROUGH, 3, GOLGI_CARB)
    put_vesicle(st, ORG_SMOOTH, 2, 0, ORG_SMOOTH, 2)
    st.stock[0] = R(mrna=4, lipid=4)
    assert st.disks_free[0] == 0
    assert options(st, gt, 0, "rough_er") == []
    assert options(st, gt, 0, "steroid_synthesis") == []


def test_steroid_synthesis_loads_k_own_lipid():
    st, gt = scenario()
    st.stock[0] = R(lipid=3)
    assert options(st, gt, 0, "steroid_synthesis") == [(1, 0, 0), (2, 0, 0), (3, 0, 0)]
    play(st, gt, 0, place("steroid_synthesis", 2))
    assert st.stock[0].tolist() == R(lipid=1)
    assert vesicle(st, ORG_SMOOTH, 0) == (0, ORG_SMOOTH, 2, NO_GOLGI)
    assert st.disks_free[0] == 1
    assert flow(st, 0, "spend_loaded") == R(lipid=2)
    assert flow(st, 0, "cargo_loaded") == R(lipid=2)


def test_golgi_moves_own_er_vesicle_with_carb_or_lipid():
    st, gt = scenario()
    put_vesicle(st, ORG_ROUGH, 1, 0, ORG_ROUGH, 3)
    put_vesicle(st, ORG_SMOOTH, 0, 0, ORG_SMOOTH, 4)
    put_vesicle(st, ORG_ROUGH, 0, 1, ORG_ROUGH, 5)  # a rival's: not seat 0's to move
    assert options(st, gt, 0, "golgi") == []  # no Carbohydrate, no Lipid
    st.stock[0] = R(carb=1, lipid=1)
    rough1, smooth0 = ORG_ROUGH * SOURCE_RADIX + 1, ORG_SMOOTH * SOURCE_RADIX + 0
    assert options(st, gt, 0, "golgi") == [
        (rough1, GOLGI_CARB, 0), (rough1, GOLGI_LIPID, 0),
        (smooth0, GOLGI_CARB, 0), (smooth0, GOLGI_LIPID, 0),
    ]
    play(st, gt, 0, place("golgi", rough1, GOLGI_CARB))
    assert vesicle(st, ORG_GOLGI, 0) == (0, ORG_ROUGH, 3, GOLGI_CARB)
    assert vesicle(st, ORG_ROUGH, 1) == EMPTY
    assert st.stock[0].tolist() == R(lipid=1)
    assert flow(st, 0, "spend_loaded") == R(carb=1) and flow(st, 0, "cargo_loaded") == R(carb=1)
    assert st.disks_free[0] == 0  # the vesicle stays on the board
    play(st, gt, 0, place("golgi", smooth0, GOLGI_LIPID))
    assert vesicle(st, ORG_GOLGI, 1) == (0, ORG_SMOOTH, 4, GOLGI_LIPID)
    assert vesicle(st, ORG_SMOOTH, 0) == EMPTY
    assert st.stock[0].tolist() == R()
    # a vesicle visits the Golgi once: nothing of seat 0's is left at an ER
    st.stock[0] = R(carb=1)
    st.spot_occ[:] = -1
    assert options(st, gt, 0, "golgi") == []


def test_exocytosis_completes_a_matching_card_and_returns_all_cargo():
    st, gt = scenario()
    put_vesicle(st, ORG_GOLGI, 1, 0, ORG_ROUGH, 4, GOLGI_CARB)
    # Insulin (1A, 3P, carb) and Insulin Receptor (1A, 3P, carb) fit; Glucagon wants lipid,
    # Growth Hormone 5 Protein, Cortisol a Smooth ER vesicle
    st.hand[0] = mask(11, 12, 14, 16, 26)
    st.stock[0] = R(atp=1)
    sync_supply(st, gt)
    supply = st.supply.tolist()
    assert options(st, gt, 0, "exocytosis") == [(1, 11, 0), (1, 16, 0)]
    play(st, gt, 0, place("exocytosis", 1, 11))
    assert st.stock[0].tolist() == R()
    assert st.hand[0] == mask(12, 14, 16, 26) and st.completed[0] == mask(11)
    assert st.hp[0, PROTEIN_HORMONE] == 3 and st.completed_by_type[0, PROTEIN_HORMONE] == 1
    assert vesicle(st, ORG_GOLGI, 1) == EMPTY
    assert st.disks_free[0] == 2  # the disk returns to its owner
    # all cargo, the surplus Protein included, returns to the supply
    assert flow(st, 0, "cargo_returned") == R(protein=4, carb=1)
    assert flow(st, 0, "spend_completion_protein_hormone") == R(atp=1)
    assert st.supply.tolist() == [supply[0], supply[1] + 4, supply[2] + 1, supply[3], supply[4] + 1]


def test_exocytosis_of_steroid_hormone_and_steroid_receptor_by_vesicle_origin():
    st, gt = scenario()
    put_vesicle(st, ORG_GOLGI, 0, 0, ORG_SMOOTH, 3, GOLGI_LIPID)
    put_vesicle(st, ORG_GOLGI, 2, 0, ORG_ROUGH, 3, GOLGI_LIPID)
    # Cortisol (1A, 3 Lipid, lipid) needs a Smooth ER vesicle; Glucocorticoid Receptor
    # (1A, 3 Protein, lipid) a Rough ER one; Aldosterone (3 Lipid, carb) fits neither
    st.hand[0] = mask(21, 26, 27)
    st.stock[0] = R(atp=2)
    assert options(st, gt, 0, "exocytosis") == [(0, 26, 0), (2, 21, 0)]
    play(st, gt, 0, place("exocytosis", 0, 26))
    assert st.hp[0, STEROID_HORMONE] == 3
    assert flow(st, 0, "cargo_returned") == R(lipid=4)
    play(st, gt, 0, place("exocytosis", 2, 21))
    assert st.hp[0, STEROID_RECEPTOR] == 3 and st.completed[0] == mask(21, 26)
    assert st.disks_free[0] == 2 and st.stock[0].tolist() == R()


def test_golgi_resource_does_not_count_toward_the_main_requirement():
    st, gt = scenario()
    # Insulin needs 3 Protein + carb: 2 Protein + the Golgi Carbohydrate is not enough
    put_vesicle(st, ORG_GOLGI, 0, 0, ORG_ROUGH, 2, GOLGI_CARB)
    # Cortisol needs 3 Lipid + lipid: 2 Lipid + the Golgi Lipid is not enough
    put_vesicle(st, ORG_GOLGI, 1, 0, ORG_SMOOTH, 2, GOLGI_LIPID)
    st.hand[0] = mask(11, 26)
    st.stock[0] = R(atp=5)
    assert options(st, gt, 0, "exocytosis") == []
    st.ves_load[ORG_GOLGI, 0] = 3
    st.ves_load[ORG_GOLGI, 1] = 3
    assert options(st, gt, 0, "exocytosis") == [(0, 11, 0), (1, 26, 0)]


def test_exocytosis_needs_the_cards_atp():
    st, gt = scenario()
    put_vesicle(st, ORG_GOLGI, 0, 0, ORG_ROUGH, 6, GOLGI_CARB)
    st.hand[0] = mask(14)  # Growth Hormone: 3 ATP
    st.stock[0] = R(atp=2)
    assert options(st, gt, 0, "exocytosis") == []
    st.stock[0] = R(atp=3)
    assert options(st, gt, 0, "exocytosis") == [(0, 14, 0)]


def test_one_vesicle_placed_moved_and_exocytosed_in_one_round():
    st, gt = scenario()
    st.hand[0] = mask(10)  # Oxytocin: 1A, 2 Protein, carb, 3 HP
    st.stock[0] = R(mrna=2, carb=1, atp=1)
    play(st, gt, 0, place("rough_er", 2))
    play(st, gt, 1, exhaust(ATP))
    play(st, gt, 0, place("golgi", ORG_ROUGH * SOURCE_RADIX + 0, GOLGI_CARB))
    play(st, gt, 1, exhaust(ATP))
    play(st, gt, 0, place("exocytosis", 0, 10))
    assert st.completed[0] == mask(10) and st.hp[0].sum() == 3
    assert st.stock[0].tolist() == R() and st.disks_free[0] == 2
    assert (st.ves_owner == -1).all()
    assert st.own_left[0] == 1 and st.g[G_ROUND] == 1


# =============================================================================================
# §3 Displacement
# =============================================================================================
def test_displacement_only_when_every_budding_location_is_full_and_only_of_rivals():
    st, gt = scenario(players=3)
    put_vesicle(st, ORG_ROUGH, 0, 1, ORG_ROUGH, 2)
    put_vesicle(st, ORG_ROUGH, 1, 0, ORG_ROUGH, 1)
    st.stock[0] = R(mrna=1)
    assert options(st, gt, 0, "rough_er") == [(1, 0, 0)]  # a location is free: no victim
    put_vesicle(st, ORG_ROUGH, 2, 2, ORG_ROUGH, 4)
    # full: one option per rival vesicle (p2 = budding index + 1), none for seat 0's own
    assert options(st, gt, 0, "rough_er") == [(1, 1, 0), (1, 3, 0)]
    sync_supply(st, gt)
    supply = st.supply.tolist()
    stock2 = st.stock[2].tolist()
    play(st, gt, 0, place("rough_er", 1, 3))
    assert vesicle(st, ORG_ROUGH, 2) == (0, ORG_ROUGH, 1, NO_GOLGI)
    assert vesicle(st, ORG_ROUGH, 0) == (1, ORG_ROUGH, 2, NO_GOLGI)
    # the victim's cargo goes to the supply (nobody gains it), its disk back to its owner
    assert st.stock[2].tolist() == stock2
    assert flow(st, 2, "cargo_lost") == R(protein=4)
    assert st.disks_free.tolist() == [0, 1, 2] and st.ves_lost.tolist() == [0, 0, 1]
    assert st.stock[0].tolist() == R()
    assert st.supply.tolist() == [supply[0] + 1, supply[1] + 4 - 1] + supply[2:]


def test_displaced_disk_is_reused_the_same_round_by_its_owner():
    st, gt = scenario(players=3)
    put_vesicle(st, ORG_ROUGH, 0, 1, ORG_ROUGH, 2)
    put_vesicle(st, ORG_SMOOTH, 0, 1, ORG_SMOOTH, 3)
    put_vesicle(st, ORG_ROUGH, 1, 0, ORG_ROUGH, 1)
    put_vesicle(st, ORG_ROUGH, 2, 2, ORG_ROUGH, 1)
    st.stock[1] = R(lipid=2)
    assert st.disks_free[1] == 0
    assert options(st, gt, 1, "steroid_synthesis") == []  # both of seat 1's disks are out
    st.stock[0] = R(mrna=1)
    play(st, gt, 0, place("rough_er", 1, 1))  # displace seat 1's vesicle at Rough ER 0
    assert vesicle(st, ORG_ROUGH, 0) == (0, ORG_ROUGH, 1, NO_GOLGI)
    assert st.disks_free.tolist() == [0, 1, 1] and st.ves_lost.tolist() == [0, 1, 0]
    assert flow(st, 1, "cargo_lost") == R(protein=2)
    assert st.g[G_TO_MOVE] == 1
    assert options(st, gt, 1, "steroid_synthesis") == [(1, 0, 0), (2, 0, 0)]
    play(st, gt, 1, place("steroid_synthesis", 2))
    assert vesicle(st, ORG_SMOOTH, 1) == (1, ORG_SMOOTH, 2, NO_GOLGI)
    assert st.disks_free[1] == 0


def test_golgi_displacement_returns_er_load_and_golgi_resource():
    st, gt = scenario()
    put_vesicle(st, ORG_GOLGI, 0, 1, ORG_ROUGH, 3, GOLGI_CARB)
    put_vesicle(st, ORG_GOLGI, 1, 1, ORG_SMOOTH, 4, GOLGI_LIPID)
    put_vesicle(st, ORG_GOLGI, 2, 0, ORG_ROUGH, 2, GOLGI_CARB)
    put_vesicle(st, ORG_ROUGH, 0, 0, ORG_ROUGH, 3)
    st.stock[0] = R(carb=1)
    assert options(st, gt, 0, "golgi") == [(0, GOLGI_CARB, 1), (0, GOLGI_CARB, 2)]
    play(st, gt, 0, place("golgi", 0, GOLGI_CARB, 2))
    assert vesicle(st, ORG_GOLGI, 1) == (0, ORG_ROUGH, 3, GOLGI_CARB)
    assert vesicle(st, ORG_ROUGH, 0) == EMPTY
    assert flow(st, 1, "cargo_lost") == R(lipid=5)  # 4 ER Lipid + 1 Golgi Lipid
    assert st.disks_free.tolist() == [0, 1] and st.ves_lost.tolist() == [0, 1]


# =============================================================================================
# §2 Exhaust, pass, turn order
# =============================================================================================
def test_exhaust_is_always_legal_with_an_unplaced_own_flask_and_pass_is_not():
    st, gt = scenario()
    st.stock[0] = R(mrna=5)
    codes = legal(st, gt, 0)
    assert codes[:3] == [exhaust(MRNA), exhaust(LIPID), exhaust(ATP)]
    assert PASS not in codes
    assert any(decode_action(c)[0] == ACT_PLACE for c in codes)  # even with placements
    play(st, gt, 0, exhaust(LIPID))
    assert st.stock[0].tolist() == R(mrna=5, lipid=1)
    assert flow(st, 0, "gain_exhaust") == R(lipid=1)
    assert st.own_left[0] == 3 and st.exhausted[0] == 1
    assert (st.spot_occ == -1).all() and st.placements[0].sum() == 0


def test_without_own_flasks_only_pass_and_grey_placements():
    st, gt = scenario()
    st.own_left[0] = 0
    codes = legal(st, gt, 0)
    assert codes[0] == PASS
    assert all(decode_action(c)[1] == FLASK_GREY for c in codes[1:]) and len(codes) > 1
    assert exhaust(ATP) not in codes  # grey flasks cannot be exhausted
    st.grey_round[0] = 1
    assert legal(st, gt, 0) == [PASS]


def test_passed_players_are_skipped_and_phase_two_runs_when_all_are_out():
    st, gt = scenario()
    st.event_deck[0] = EVENT["Energy Surplus"]  # round 1's Phase 2 reveals it: +2 ATP each
    st.own_left[:] = 0
    st.grey_round[0] = 1
    play(st, gt, 0, PASS)
    assert st.out.tolist() == [1, 0] and st.g[G_TO_MOVE] == 1
    play(st, gt, 1, place("nucleus", 0, grey=True))
    assert st.g[G_TO_MOVE] == 1  # seat 0 is out for the rest of the round
    assert legal(st, gt, 1) == [PASS]
    play(st, gt, 1, PASS)
    assert st.g[G_ROUND] == 2 and st.g[G_PHASE] == PH_PLACE and st.g[G_TO_MOVE] == 0
    assert st.own_left.tolist() == [4, 4] and st.out.tolist() == [0, 0]
    assert st.grey_round.tolist() == [0, 0] and st.g[G_GREY_LEFT] == 2
    assert (st.spot_occ == -1).all()
    assert st.stock.tolist() == [R(atp=2), R(mrna=3, atp=2)]
    assert flow(st, 1, "gain_event") == R(atp=2)


def test_turns_go_in_increasing_seat_order_from_the_marker_holder():
    st, gt = scenario(players=3)
    st.g[G_MARKER] = 2
    finish_round(st, gt)
    assert st.g[G_ROUND] == 2 and st.g[G_TO_MOVE] == 2 and st.g[G_ROUND_HOLDER] == 2
    seen = []
    for _ in range(4):
        seen.append(int(st.g[G_TO_MOVE]))
        apply_phase_one(st, gt, exhaust(MRNA))
    assert seen == [2, 0, 1, 2]


def turns(st, gt, n: int) -> list[int]:
    """The seats of the next n turns, each exhausting a flask for mRNA (or passing)."""
    seen = []
    for _ in range(n):
        seat = int(st.g[G_TO_MOVE])
        seen.append(seat)
        apply_phase_one(st, gt, exhaust(MRNA) if st.own_left[seat] > 0 else PASS)
    return seen


def test_snake_round_reverses_the_order_every_round_the_holder_last_in_even_rounds():
    st, gt = scenario(players=3, placement_order="snake_round")
    assert turns(st, gt, 4) == [0, 1, 2, 0]  # round 1: the marker holder first, seats upward
    finish_round(st, gt)
    assert st.g[G_ROUND] == 2 and st.g[G_ROUND_HOLDER] == 0
    assert turns(st, gt, 7) == [2, 1, 0, 2, 1, 0, 2]  # round 2: the table backwards, holder last
    finish_round(st, gt)
    assert turns(st, gt, 4) == [0, 1, 2, 0]  # round 3: forwards again
    # the marker taken at Laureates in round 3 anchors round 4: its holder moves last
    play(st, gt, 1, place("laureates", 0))
    finish_round(st, gt)
    assert st.g[G_ROUND] == 4 and st.g[G_ROUND_HOLDER] == 1
    assert turns(st, gt, 4) == [0, 2, 1, 0]
    assert st.first_player[:4].tolist() == [0, 0, 0, 1]  # the record keeps the marker holder


def test_snake_round_with_rotate_first_movers_by_round():
    st, gt = scenario(players=3, placement_order="snake_round", turn_order="rotate")
    first = []
    for _ in range(5):
        first.append(int(st.g[G_TO_MOVE]))
        finish_round(st, gt)
    assert st.first_player[:5].tolist() == [0, 1, 2, 0, 1]  # the marker, one seat a round
    assert first == [0, 0, 2, 2, 1]  # odd rounds the holder, even rounds the seat before it


def test_snake_pass_reverses_after_each_pass_the_end_seat_moving_twice():
    st, gt = scenario(players=3, placement_order="snake_pass")
    assert turns(st, gt, 10) == [0, 1, 2, 2, 1, 0, 0, 1, 2, 2]
    finish_round(st, gt)  # every round starts afresh, forwards from the marker holder
    assert turns(st, gt, 4) == [0, 1, 2, 2]


def test_snake_pass_skips_players_out_the_last_one_in_moving_again():
    st, gt = scenario(players=4, placement_order="snake_pass")
    st.g[G_MARKER] = 1
    finish_round(st, gt)
    assert st.g[G_ROUND_HOLDER] == 1 and st.g[G_TO_MOVE] == 1
    st.own_left[0] = 0  # seat 0, the end of the pass (1, 2, 3, 0), has no flask: it passes
    st.grey_round[0] = 1
    # 0 passes at the end of the first pass and is skipped; 3, the last still in, moves again
    assert turns(st, gt, 8) == [1, 2, 3, 0, 3, 2, 1, 1]
    assert st.out.tolist() == [1, 0, 0, 0]


def test_clockwise_is_the_default_placement_order():
    assert GAME.rules.placement_order == "clockwise"
    st, gt = scenario(players=3)
    finish_round(st, gt)
    assert turns(st, gt, 4) == [0, 1, 2, 0]


# =============================================================================================
# §2 Grey flasks
# =============================================================================================
def test_grey_flask_limit_per_player_per_round_and_the_area_running_out():
    st, gt = scenario(players=3)
    assert options(st, gt, 0, "nucleus", grey=True) == [(0, 0, 0), (1, 0, 0)]
    play(st, gt, 0, place("nucleus", 0, grey=True))
    assert st.stock[0].tolist() == R(mrna=3)
    assert st.own_left[0] == 4  # a grey placement does not use an own flask
    assert st.grey_round[0] == 1 and st.grey_total[0] == 1 and st.g[G_GREY_LEFT] == 1
    assert st.spot_occ[first_spot(gt, "nucleus")] == 0  # the placing player's in every respect
    assert st.placements[0, LOC["nucleus"]] == 1
    assert grey_codes(legal(st, gt, 0)) == []  # one grey flask per player per round
    assert grey_codes(legal(st, gt, 1)) != []
    play(st, gt, 1, place("mitochondria", 0, grey=True))
    assert st.g[G_GREY_LEFT] == 0
    assert st.grey_round[2] == 0 and grey_codes(legal(st, gt, 2)) == []  # the area is empty


def test_grey_per_player_zero_disables_grey_flasks():
    st, gt = scenario(grey_per_player=0)
    assert grey_codes(legal(st, gt, 0)) == []
    st.own_left[0] = 0
    assert legal(st, gt, 0) == [PASS]


# =============================================================================================
# §3, §6 Event location bonus
# =============================================================================================
def test_location_bonus_goes_to_the_first_placement_own_or_grey():
    st, gt = scenario()
    resolve_event(st, gt, EVENT["Respiration Boost"])  # Mitochondria +1 ATP
    assert st.bonus_res[LOC["mitochondria"]] == ATP and st.bonus_n[LOC["mitochondria"]] == 1
    play(st, gt, 0, place("nucleus", 0))
    assert st.bonus_res[LOC["mitochondria"]] == ATP  # another location does not claim it
    play(st, gt, 1, place("mitochondria", 1, grey=True))  # b: +2 ATP, and the bonus
    assert st.stock[1].tolist() == R(atp=3)
    assert flow(st, 1, "gain_spot_mitochondria") == R(atp=2)
    assert flow(st, 1, "gain_location_bonus") == R(atp=1)
    assert st.bonus_res[LOC["mitochondria"]] == -1
    play(st, gt, 0, place("mitochondria", 0))
    assert st.stock[0].tolist() == R(mrna=3, atp=3)  # no bonus for the second placement


def test_location_bonus_cannot_pay_the_spots_cost():
    st, gt = scenario()
    st.bonus_res[LOC["glucose_transporter"]] = ATP  # a bonus of 2 ATP at the Glucose Transporter
    st.bonus_n[LOC["glucose_transporter"]] = 2
    assert options(st, gt, 0, "glucose_transporter") == []  # a costs 1 ATP: held 0
    st.stock[0] = R(atp=1)
    assert options(st, gt, 0, "glucose_transporter") == [(0, 0, 0)]  # b costs 2 ATP
    play(st, gt, 0, place("glucose_transporter", 0))
    assert st.stock[0].tolist() == R(carb=1, atp=2)  # pay 1, +1 Carb, then +2 ATP bonus
    # the shipped Insulin Spike (+1 Carbohydrate) does not make a spot legal either
    st.spot_occ[:] = -1
    resolve_event(st, gt, EVENT["Insulin Spike"])
    st.stock[1] = R()
    assert options(st, gt, 1, "glucose_transporter") == []


def test_unclaimed_location_bonus_lapses_after_its_round():
    st, gt = scenario()
    st.event_deck[0] = EVENT["Respiration Boost"]
    st.event_deck[1] = EVENT["Energy Surplus"]
    finish_round(st, gt)
    assert st.g[G_ROUND] == 2
    assert st.bonus_res[LOC["mitochondria"]] == ATP  # in force for round 2
    finish_round(st, gt)  # nobody goes to the Mitochondria in round 2
    assert st.g[G_ROUND] == 3
    assert (st.bonus_res == -1).all() and (st.bonus_n == 0).all()
    atp = int(st.stock[0, ATP])
    play(st, gt, 0, place("mitochondria", 0))
    assert st.stock[0, ATP] == atp + 3
    assert flow(st, 0, "gain_location_bonus") == R()


# =============================================================================================
# §2, §5 Laureates in Biology
# =============================================================================================
def test_laureates_goal_markers_first_scores_second_does_not_at_most_two_never_two_of_one():
    st, gt = scenario(players=3)  # 4 goals revealed: p1 = 1 + goal index
    all_opts = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0)]
    assert options(st, gt, 1, "laureates") == all_opts
    play(st, gt, 1, place("laureates", 1))  # seat 1: first marker on goal 0
    assert st.g[G_MARKER] == 1 and st.g[G_ROUND_HOLDER] == 0
    assert st.g[G_TO_MOVE] == 2  # this round's order does not change
    assert st.hp[1, SRC_GOAL_MARKER] == 3 and st.hp[1].sum() == 3
    assert st.goal_mark[0].tolist() == [0, 1, 0] and st.goal_nmark[0] == 1
    assert st.markers_left[1] == 1 and st.markers_placed[1] == 1 and st.laureates[1] == 1
    assert options(st, gt, 2, "laureates") == []  # one spot, taken
    st.spot_occ[:] = -1  # (a later round)
    # never two of one player: goal 0 holds only one marker, but it is seat 1's
    assert options(st, gt, 1, "laureates") == [(0, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0)]
    play(st, gt, 2, place("laureates", 1))  # seat 2: second marker on goal 0 scores nothing
    assert st.hp[2].sum() == 0 and st.goal_nmark[0] == 2 and st.g[G_MARKER] == 2
    st.spot_occ[:] = -1
    # at most two markers per goal card
    assert options(st, gt, 0, "laureates") == [(0, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0)]
    play(st, gt, 1, place("laureates", 3))  # seat 1's last marker, first on goal 2: +3
    assert st.hp[1, SRC_GOAL_MARKER] == 6 and st.markers_left[1] == 0
    st.spot_occ[:] = -1
    assert options(st, gt, 1, "laureates") == [(0, 0, 0)]  # no marker left: +1 ATP only
    play(st, gt, 1, place("laureates", 0))
    assert st.stock[1].tolist() == R(atp=1) and flow(st, 1, "gain_spot_laureates") == R(atp=1)
    assert st.laureates.tolist() == [0, 3, 1]
    assert st.laureates_holder.tolist() == [0, 1, 0]  # seat 1 already held the marker


def test_the_records_name_each_goal_markers_card_round_seat_and_claim_order():
    """Record schema 2: a player's marker on each goal card, with the round it went on and its
    place in that card's claims; each card's end bonus by player (docs/runs.md)."""
    from simcell.kernel.state import allocate_records
    from simcell.play.game import record_game
    from simcell.runner.records import player_table

    st, gt = scenario(players=3)
    st.goals[:] = [GOAL["Detoxification"], GOAL["Enzymes"], GOAL["Hormones"], GOAL["Receptors"]]
    play(st, gt, 0, exhaust(ATP))
    play(st, gt, 1, place("laureates", 1))  # round 1: seat 1, the first marker on Detoxification
    finish_round(st, gt)
    assert st.g[G_ROUND] == 2
    play(st, gt, 2, place("laureates", 1))  # round 2: seat 2, the second on Detoxification
    st.spot_occ[:] = -1  # (a later round)
    st.g[G_ROUND] = 3
    play(st, gt, 0, place("laureates", 4))  # round 3: seat 0, the first on Receptors
    complete(st, 2, 36)  # seat 2 has the most Detoxification cards
    end_game(st, gt)
    pr, gr = allocate_records(gt, 1)
    record_game(st, gt, pr, gr, 0, 0, 0, 0)
    detox, receptors, enzymes = GOAL["Detoxification"], GOAL["Receptors"], GOAL["Enzymes"]
    assert pr.goal_marker_round[:, detox].tolist() == [0, 1, 2]
    assert pr.goal_marker_order[:, detox].tolist() == [0, 1, 2]
    assert pr.goal_marker_round[:, receptors].tolist() == [3, 0, 0]
    assert pr.goal_marker_order[:, receptors].tolist() == [1, 0, 0]
    assert pr.goal_marker_order[:, enzymes].tolist() == [0, 0, 0]
    assert pr.goal_bonus_by_goal[:, detox].tolist() == [0, 0, 8]
    assert pr.goal_bonus_by_goal.sum(axis=1).tolist() == st.hp[:, SRC_GOAL_BONUS].tolist()
    # the run directory's columns name the goal card by its id
    table = player_table(pr, GAME, 3, 1).to_pandas()
    detox_id = GAME.goals[detox].id
    assert table[f"marker_round_{detox_id}"].tolist() == [0, 1, 2]
    assert table[f"marker_order_{detox_id}"].tolist() == [0, 1, 2]
    assert table[f"goal_bonus_{detox_id}"].tolist() == [0, 0, 8]


def test_laureates_marker_holder_starts_every_later_round():
    st, gt = scenario(players=3)
    # the holder may take Laureates (holder_may_take = true by default)
    assert options(st, gt, 0, "laureates") == [(k, 0, 0) for k in range(5)]
    play(st, gt, 0, exhaust(ATP))
    play(st, gt, 1, place("laureates", 0))
    assert st.g[G_MARKER] == 1 and st.g[G_TO_MOVE] == 2
    finish_round(st, gt)
    assert st.g[G_ROUND] == 2 and st.g[G_TO_MOVE] == 1 and st.g[G_ROUND_HOLDER] == 1
    assert st.first_player[:2].tolist() == [0, 1]


def test_laureates_holder_may_not_take_when_the_option_is_off():
    st, gt = scenario(laureates_holder_may_take=False)
    assert options(st, gt, 0, "laureates") == []
    assert options(st, gt, 0, "laureates", grey=True) == []
    assert options(st, gt, 1, "laureates") == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)]
    play(st, gt, 0, exhaust(ATP))
    play(st, gt, 1, place("laureates", 0))
    assert st.g[G_MARKER] == 1
    finish_round(st, gt)
    assert st.g[G_ROUND_HOLDER] == 1
    assert options(st, gt, 1, "laureates") == []
    assert options(st, gt, 0, "laureates") == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)]


def test_first_marker_hp_by_claim_order_falls_with_the_goal_cards_already_claimed():
    assert GAME.rules.first_marker_hp == () and GAME.first_marker_hp(4) == 3  # the board's 3
    st, gt = scenario(players=3, first_marker_hp=(3, 1))  # 4 goals; the last value repeats
    play(st, gt, 0, place("laureates", 1))  # the game's first claim: goal 0
    assert st.hp[0, SRC_GOAL_MARKER] == 3
    st.spot_occ[:] = -1
    play(st, gt, 1, place("laureates", 1))  # a second marker on goal 0 scores nothing
    assert st.hp[1, SRC_GOAL_MARKER] == 0
    st.spot_occ[:] = -1
    play(st, gt, 1, place("laureates", 3))  # the second goal card claimed
    assert st.hp[1, SRC_GOAL_MARKER] == 1
    st.spot_occ[:] = -1
    play(st, gt, 2, place("laureates", 4))  # the third: the last value again
    assert st.hp[:, SRC_GOAL_MARKER].tolist() == [3, 1, 1]


def test_goals_open_round_no_goal_marker_before_that_round():
    assert GAME.rules.goals_open_round == 1
    st, gt = scenario(players=2, goals_open_round=3)
    assert options(st, gt, 0, "laureates") == [(0, 0, 0)]  # round 1: the ATP only
    assert options(st, gt, 0, "laureates", grey=True) == [(0, 0, 0)]
    finish_round(st, gt)
    assert st.g[G_ROUND] == 2 and options(st, gt, 1, "laureates") == [(0, 0, 0)]
    finish_round(st, gt)
    assert st.g[G_ROUND] == 3
    assert options(st, gt, 0, "laureates") == [(k, 0, 0) for k in range(4)]  # open from round 3
    play(st, gt, 0, place("laureates", 2))
    assert st.hp[0, SRC_GOAL_MARKER] == 3 and st.goal_round[1, 0] == 3


def test_laureates_marker_only_gives_the_marker_and_the_atp_never_a_goal_marker():
    assert GAME.rules.laureates_marker_only is False
    st, gt = scenario(players=3, laureates_marker_only=True)
    assert options(st, gt, 1, "laureates") == [(0, 0, 0)]
    assert options(st, gt, 1, "laureates", grey=True) == [(0, 0, 0)]
    play(st, gt, 0, exhaust(ATP))
    play(st, gt, 1, place("laureates", 0))
    assert st.g[G_MARKER] == 1 and st.stock[1].tolist() == R(atp=1)
    finish_round(st, gt)
    assert st.g[G_ROUND] == 2 and options(st, gt, 0, "laureates") == [(0, 0, 0)]
    assert st.markers_left.tolist() == [2, 2, 2] and st.hp.sum() == 0


def test_laureates_once_each_no_second_visit_until_every_player_has_visited():
    st, gt = scenario(players=3, laureates_once_each=True)
    assert options(st, gt, 0, "laureates") == [(k, 0, 0) for k in range(5)]
    play(st, gt, 0, place("laureates", 1))  # seat 0 visits (a goal marker)
    st.spot_occ[:] = -1  # (a later round)
    assert options(st, gt, 0, "laureates") == []  # not again, own flask or grey
    assert options(st, gt, 0, "laureates", grey=True) == []
    assert options(st, gt, 1, "laureates") != [] and options(st, gt, 2, "laureates") != []
    play(st, gt, 1, place("laureates", 0))
    st.spot_occ[:] = -1
    assert options(st, gt, 0, "laureates") == [] and options(st, gt, 1, "laureates") == []
    play(st, gt, 2, place("laureates", 0, grey=True))  # a grey flask's visit counts too
    st.spot_occ[:] = -1
    # every player has visited: the circle starts again, open to all, the last visitor too
    assert options(st, gt, 2, "laureates") == [(k, 0, 0) for k in range(5)]
    assert options(st, gt, 0, "laureates") == [(0, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0)]
    play(st, gt, 2, place("laureates", 0))
    st.spot_occ[:] = -1
    assert options(st, gt, 2, "laureates") == [] and options(st, gt, 0, "laureates") != []
    assert st.laureates.tolist() == [1, 1, 2]


def test_laureates_once_each_is_off_by_default_and_combines_with_the_holder_bar():
    assert GAME.rules.laureates_once_each is False
    st, gt = scenario(players=2, laureates_once_each=True, laureates_holder_may_take=False)
    assert options(st, gt, 0, "laureates") == []  # the holder at round start
    play(st, gt, 0, exhaust(ATP))
    play(st, gt, 1, place("laureates", 0))
    finish_round(st, gt)
    assert st.g[G_ROUND_HOLDER] == 1
    # seat 1 is barred twice over; seat 0 may go, and its visit closes the circle
    assert options(st, gt, 1, "laureates") == []
    play(st, gt, 1, exhaust(ATP))
    play(st, gt, 0, place("laureates", 0))
    finish_round(st, gt)
    assert st.g[G_ROUND_HOLDER] == 0 and options(st, gt, 1, "laureates") == [(k, 0, 0) for k in range(4)]


def test_rotate_turn_order_laureates_does_not_move_the_marker():
    st, gt = scenario(players=3, turn_order="rotate")
    play(st, gt, 0, exhaust(ATP))
    play(st, gt, 1, place("laureates", 1))
    assert st.g[G_MARKER] == 0  # +1 ATP or a goal marker, but not the First Player Marker
    assert st.hp[1, SRC_GOAL_MARKER] == 3
    finish_round(st, gt)
    assert st.g[G_MARKER] == 1 and st.g[G_TO_MOVE] == 1
    finish_round(st, gt)
    assert st.g[G_MARKER] == 2 and st.g[G_TO_MOVE] == 2
    finish_round(st, gt)
    assert st.g[G_MARKER] == 0 and st.g[G_TO_MOVE] == 0
    assert st.first_player[:4].tolist() == [0, 1, 2, 0]


# =============================================================================================
# §2 Card Area refresh
# =============================================================================================
def test_refresh_with_slot_zero_bought_discards_nothing_slides_and_fills():
    st, gt = scenario()
    st.slot_card[:] = [-1, 20, 21, 22]
    set_deck(st, [30, 31, 5])
    set_discard(st, [7])
    refresh_card_area(st, gt)
    assert st.slot_card.tolist() == [20, 21, 22, 30]
    assert deck(st) == [31, 5] and discard(st) == [7]


def test_refresh_with_slot_zero_holding_a_card_discards_it():
    st, gt = scenario()
    st.slot_card[:] = [10, 11, -1, 13]
    set_deck(st, [30, 31, 5])
    set_discard(st, [7])
    refresh_card_area(st, gt)
    assert discard(st) == [7, 10]
    assert st.slot_card.tolist() == [11, 13, 30, 31]
    assert deck(st) == [5] and st.g[G_RESHUFFLES] == 0


def test_refresh_does_not_reshuffle_while_the_deck_suffices():
    st, gt = scenario()
    st.slot_card[:] = [10, -1, -1, -1]
    set_deck(st, [30, 31, 5, 6])
    set_discard(st, [7])
    refresh_card_area(st, gt)
    assert st.slot_card.tolist() == [30, 31, 5, 6]
    assert deck(st) == [] and discard(st) == [7, 10] and st.g[G_RESHUFFLES] == 0


def _reshuffled(st, gt, cards: list[int], index: int) -> list[int]:
    """The order the index-th reshuffle stream gives the discard pile (first = top)."""
    ids = np.array(cards, np.int32)
    key = stream_key(int(st.g[0]), gt.players, int(st.g[1]), CHANCE_RESHUFFLE, index)
    keyed_shuffle(key, ids, len(cards), np.zeros(len(cards), np.uint64))
    return ids.tolist()


def test_refresh_reshuffles_the_whole_discard_pile_when_the_deck_is_empty():
    st, gt = scenario()
    st.slot_card[:] = [10, 11, -1, -1]
    set_deck(st, [])
    set_discard(st, [1, 2, 3])
    refresh_card_area(st, gt)
    # slot 0's card is discarded first, then the whole pile [1, 2, 3, 10] becomes the deck
    new_deck = _reshuffled(st, gt, [1, 2, 3, 10], 1)
    assert sorted(new_deck) == [1, 2, 3, 10]
    assert st.slot_card.tolist() == [11] + new_deck[:3]
    assert deck(st) == new_deck[3:] and discard(st) == [] and st.g[G_RESHUFFLES] == 1


def test_refresh_reshuffles_mid_fill_when_the_deck_runs_out():
    st, gt = scenario()
    st.slot_card[:] = [10, -1, -1, -1]
    set_deck(st, [7])
    set_discard(st, [])
    refresh_card_area(st, gt)
    # slot 0 takes the last deck card; the pile (only the card just discarded) is reshuffled
    # and refills slot 1; then both are empty and slots 2-3 stay empty
    assert st.slot_card.tolist() == [7, 10, -1, -1]
    assert deck(st) == [] and discard(st) == [] and st.g[G_RESHUFFLES] == 1


def test_empty_deck_and_empty_discard_leave_slots_empty_and_offer_no_spot():
    st, gt = scenario()
    st.slot_card[:] = [-1, 11, -1, -1]
    set_deck(st, [])
    set_discard(st, [])
    refresh_card_area(st, gt)
    assert st.slot_card.tolist() == [11, -1, -1, -1]
    assert st.g[G_RESHUFFLES] == 0
    st.stock[0] = R(atp=9)
    assert options(st, gt, 0, "card_area") == [(0, 0, 0)]


def test_phase_two_refills_the_slot_of_a_card_bought_in_phase_one():
    st, gt = scenario()
    st.slot_card[:] = [20, 21, 22, 23]
    set_deck(st, [30, 31, 5])
    set_discard(st, [])
    st.event_deck[0] = EVENT["Mitogen Signal"]
    st.stock[0] = R(atp=1)
    play(st, gt, 0, place("card_area", 1))
    assert st.slot_card.tolist() == [20, -1, 22, 23]
    phase_two(st, gt)
    assert discard(st) == [20]
    assert st.slot_card.tolist() == [22, 23, 30, 31] and deck(st) == [5]


# =============================================================================================
# §1 Setup
# =============================================================================================
def test_additional_resource_kept_at_setup_resolves_at_step_six():
    gt = tables(2)
    st = new_state(gt, 0)
    reset_state(st, gt, SEED, 0, False)
    setup_game(st, gt)
    assert st.g[G_PHASE] == PH_RETURN
    # this deal: seat 1 holds 28 Testosterone, 34 Creatine Phosphate (+4 ATP) and
    # 35 Polyribosome (+2 mRNA, +1 Protein)
    assert st.dealt.tolist() == [mask(3, 38, 40), mask(28, 34, 35)]
    n_deck = int(st.g[G_DECK_N])
    apply_return(st, gt, 3)
    apply_return(st, gt, 28)
    assert st.g[G_PHASE] == PH_COMBO and st.g[G_DECK_N] == n_deck + 2
    assert st.kept.tolist() == [mask(38, 40), mask(34, 35)]
    assert st.stock.tolist() == [R(atp=2), R(atp=3)]  # step 4: starting ATP by seat
    apply_combo(st, gt, 3)  # seat 0: mRNA + mRNA
    assert st.hand[1] == mask(34, 35)  # kept cards wait for step 6
    assert st.stock[1].tolist() == R(atp=3)
    apply_combo(st, gt, 2)  # seat 1: ATP + Lipid; then step 6
    assert st.stock.tolist() == [R(mrna=2, atp=2), R(mrna=2, protein=1, lipid=1, atp=8)]
    assert st.hand.tolist() == [mask(38, 40), 0]
    assert discard(st) == [34, 35]  # in id order
    assert flow(st, 1, "gain_setup_atp") == R(atp=3)
    assert flow(st, 1, "gain_setup_pick") == R(lipid=1, atp=1)
    assert flow(st, 1, "gain_additional_resource") == R(mrna=2, protein=1, atp=4)
    assert st.completed.tolist() == [0, 0]
    assert st.g[G_ROUND] == 1 and st.g[G_PHASE] == PH_PLACE and st.g[G_TO_MOVE] == 0


def test_starting_hp_by_seat_is_scored_at_setup_step_four_as_its_own_source():
    assert GAME.rules.starting_hp_by_seat == (0, 0, 0, 0, 0)
    gt = tables(3, starting_hp_by_seat=(0, 2, 5, 7, 9, 11))  # values past the seats are unused
    st = new_state(gt, 0)
    reset_state(st, gt, SEED, 0, False)
    setup_game(st, gt)
    assert st.hp.sum() == 0
    for _ in range(3):
        h = int(st.hand[int(st.g[G_TO_MOVE])])
        apply_return(st, gt, (h & -h).bit_length() - 1)
    assert st.hp[:, SRC_START].tolist() == [0, 2, 5]  # with the starting ATP
    assert st.hp.sum(axis=1).tolist() == [0, 2, 5]
    for _ in range(3):
        apply_combo(st, gt, 0)
    finish_round(st, gt)
    assert st.hp_round[:, 0].tolist() == [int(st.hp[s].sum()) for s in range(3)]
    assert (st.hp_round[:, 0] >= [0, 2, 5]).all()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_counts_by_player_count(players):
    st, gt = scenario(players=players)
    assert st.own_left.tolist() == [{2: 4, 3: 4, 4: 3, 5: 2}[players]] * players
    assert st.g[G_GREY_LEFT] == 2 and st.disks_free.tolist() == [2] * players
    assert st.markers_left.tolist() == [2] * players
    assert gt.goals_revealed == min(players + 1, 5)
    assert gt.rounds == {2: 11, 3: 11, 4: 12, 5: 13}[players]


# =============================================================================================
# §6 Events
# =============================================================================================
def test_negative_hp_if_event_is_floored_at_zero():
    st, gt = scenario(players=3)
    st.hp[1, ENZYME] = 2
    st.stock[:, ATP] = [0, 1, 5]
    resolve_event(st, gt, EVENT["Oxidative Stress"])  # ATP <= 1: -1 HP
    assert st.hp[:, SRC_EVENT].tolist() == [0, -1, 0]  # seat 0 had no HP to lose
    resolve_event(st, gt, EVENT["Oxidative Stress"])
    resolve_event(st, gt, EVENT["Oxidative Stress"])
    assert st.hp[:, SRC_EVENT].tolist() == [0, -2, 0]
    assert st.hp.sum(axis=1).tolist() == [0, 0, 0]


def test_hp_if_completed_at_least():
    st, gt = scenario(players=3)
    complete(st, 0, 0, 1)  # two Enzymes
    complete(st, 1, 2)  # one
    complete(st, 2, 10, 26)  # two hormones
    resolve_event(st, gt, EVENT["Enzyme Induction"])  # >= 2 Enzymes: +1
    assert st.hp[:, SRC_EVENT].tolist() == [1, 0, 0]
    resolve_event(st, gt, EVENT["Hormonal Balance"])  # >= 2 hormones: +1
    assert st.hp[:, SRC_EVENT].tolist() == [1, 0, 1]


def test_all_gain_discard_down_and_card_discount():
    st, gt = scenario()
    resolve_event(st, gt, EVENT["Energy Surplus"])
    assert st.stock.tolist() == [R(atp=2), R(atp=2)]
    assert flow(st, 0, "gain_event") == R(atp=2)
    st.stock[0] = R(mrna=6, protein=4, carb=5, lipid=1, atp=9)
    resolve_event(st, gt, EVENT["Autophagy"])  # macromolecules down to 4 each, not ATP
    assert st.stock[0].tolist() == R(mrna=4, protein=4, carb=4, lipid=1, atp=9)
    assert flow(st, 0, "spend_discard_down") == R(mrna=2, carb=1)
    resolve_event(st, gt, EVENT["Mitogen Signal"])  # Card Area purchases cost 1 less
    assert st.g[G_DISCOUNT] == 1
    st.slot_card[:] = [20, 21, 22, 23]
    st.stock[1] = R()
    assert options(st, gt, 1, "card_area") == [(0, 0, 0), (1, 0, 0)]
    st.stock[1] = R(atp=2)
    play(st, gt, 1, place("card_area", 3))
    assert st.stock[1].tolist() == R() and flow(st, 1, "spend_card_price") == R(atp=2)


# =============================================================================================
# §5, §8 End of game and scoring
# =============================================================================================
def test_most_completed_tie_pays_every_tied_marker_holder():
    st, gt = scenario(players=3)
    st.goals[:] = [GOAL["Detoxification"], GOAL["Enzymes"], GOAL["Hormones"], GOAL["Receptors"]]
    st.goal_mark[0] = [1, 1, 0]
    complete(st, 0, 36, 37)
    complete(st, 1, 38, 39)
    complete(st, 2, 40, 41)  # tied too, but without a marker
    end_game(st, gt)
    assert st.hp[:, SRC_GOAL_BONUS].tolist() == [8, 8, 0]
    assert st.g[G_PHASE] == PH_OVER


def test_most_completed_lost_to_a_player_without_a_marker():
    st, gt = scenario(players=3)
    st.goals[:] = [GOAL["Detoxification"], GOAL["Enzymes"], GOAL["Hormones"], GOAL["Receptors"]]
    st.goal_mark[0] = [1, 1, 0]
    complete(st, 0, 36, 37)
    complete(st, 2, 38, 39, 40)
    end_game(st, gt)
    assert st.hp[:, SRC_GOAL_BONUS].tolist() == [0, 0, 0]


def test_most_completed_needs_at_least_one_card():
    st, gt = scenario()
    st.goals[:] = [GOAL["Detoxification"], GOAL["Enzymes"], GOAL["Hormones"]]
    st.goal_mark[0] = [1, 1]
    end_game(st, gt)
    assert st.hp[:, SRC_GOAL_BONUS].tolist() == [0, 0]


def test_per_completed_distinct_types_and_receptor_bonuses():
    st, gt = scenario()
    st.goals[:] = [GOAL["Enzymes"], GOAL["Hormones"], GOAL["Diversity"]]
    st.goal_mark[:] = [[1, 0], [1, 0], [0, 1]]
    # seat 0: 2 Enzymes, a protein and a steroid hormone, a protein and a steroid receptor
    complete(st, 0, 0, 1, 10, 26, 16, 21)
    # seat 1: an Enzyme, a Detoxification card, two protein hormones, a protein receptor
    complete(st, 1, 2, 36, 10, 11, 17)
    end_game(st, gt)
    # seat 0: Enzymes 2 x 2 + Hormones 2 x 2; seat 1: Diversity 2 x 4 types
    assert st.hp[:, SRC_GOAL_BONUS].tolist() == [8, 8]
    # receptors x matching hormones: seat 0 16 x 1 PH + 21 x 1 SH; seat 1 17 x 2 PH
    assert st.hp[:, SRC_RECEPTOR_BONUS].tolist() == [2, 2]
    assert st.completed_by_type[1, PROTEIN_RECEPTOR] == 1


def test_ties_for_the_win_split_it_and_share_the_rank():
    st, gt = scenario(players=3)
    hp, share, rank = np.zeros(3, np.int64), np.zeros(3, np.float64), np.zeros(3, np.int64)
    st.hp[:] = 0
    st.hp[:, ENZYME] = [3, 5, 1]
    st.hp[:, SRC_GOAL_MARKER] = [2, 0, 2]  # totals 5, 5, 3
    assert final_scores(st, gt, hp, share, rank) == 1
    assert hp.tolist() == [5, 5, 3] and share.tolist() == [0.5, 0.5, 0.0]
    assert rank.tolist() == [1, 1, 3]
    st.hp[:, SRC_EVENT] = [2, 0, 2]  # totals 7, 5, 5
    assert final_scores(st, gt, hp, share, rank) == 0
    assert share.tolist() == [1.0, 0.0, 0.0] and rank.tolist() == [1, 2, 2]


def test_final_round_has_no_phase_two_and_is_scored_at_once():
    st, gt = scenario()
    st.g[G_ROUND] = gt.rounds
    st.g[G_EVENT_NEXT] = st.g[G_EVENT_N]  # every event revealed
    st.slot_card[:] = [20, 21, 22, 23]
    st.goals[:] = [GOAL["Enzymes"], GOAL["Detoxification"], GOAL["Hormones"]]
    st.goal_mark[0] = [1, 0]
    complete(st, 0, 0)
    st.hp[0, ENZYME] = 2
    finish_round(st, gt)
    assert st.g[G_PHASE] == PH_OVER and st.g[G_ROUND] == gt.rounds
    assert st.slot_card.tolist() == [20, 21, 22, 23]  # no refresh
    assert st.hp_round[:, gt.rounds - 1].tolist() == [2, 0]  # before end-game bonuses
    assert st.hp[0, SRC_GOAL_BONUS] == 2


# =============================================================================================
# §10 Limited supply
# =============================================================================================
def test_limited_supply_cuts_a_gain_and_the_spot_stays_legal():
    st, gt = scenario(supply_limited=True)
    st.stock[1] = R(mrna=16)
    sync_supply(st, gt)
    assert st.supply[MRNA] == 2
    play(st, gt, 0, place("nucleus", 0))  # +3 mRNA, only 2 left
    assert st.stock[0].tolist() == R(mrna=2)
    assert flow(st, 0, "gain_spot_nucleus") == R(mrna=2)
    assert st.shortfall.tolist() == R(mrna=1) and st.supply[MRNA] == 0
    assert options(st, gt, 1, "nucleus") == [(1, 0, 0)]  # zero gain, still legal
    play(st, gt, 1, place("nucleus", 1))
    assert st.stock[1].tolist() == R(mrna=16) and st.shortfall.tolist() == R(mrna=3)
    play(st, gt, 0, exhaust(MRNA))  # exhaust stays legal with none left
    assert st.stock[0].tolist() == R(mrna=2) and st.shortfall.tolist() == R(mrna=4)


def test_limited_supply_without_protein_forbids_free_ribosome_and_rough_er():
    st, gt = scenario(supply_limited=True)
    st.stock[0] = R(mrna=3)
    st.stock[1] = R(protein=16)
    put_vesicle(st, ORG_GOLGI, 0, 1, ORG_ROUGH, 2, GOLGI_CARB)  # cargo counts as in use
    sync_supply(st, gt)
    assert st.supply[PROTEIN] == 0
    assert options(st, gt, 0, "free_ribosome") == []
    assert options(st, gt, 0, "rough_er") == []
    st.stock[1] = R(protein=14)
    sync_supply(st, gt)
    assert st.supply[PROTEIN] == 2
    assert options(st, gt, 0, "free_ribosome") == [(1, 0, 0), (2, 0, 0)]
    assert options(st, gt, 0, "rough_er") == [(1, 0, 0), (2, 0, 0)]


def test_unlimited_supply_ignores_the_components_count():
    st, gt = scenario()
    st.stock[1] = R(protein=18)
    sync_supply(st, gt)
    st.stock[0] = R(mrna=3)
    assert options(st, gt, 0, "free_ribosome") == [(1, 0, 0), (2, 0, 0), (3, 0, 0)]
    play(st, gt, 0, place("free_ribosome", 3))
    assert st.stock[0].tolist() == R(protein=3) and st.shortfall.tolist() == R()


def test_limited_supply_exchange_counts_the_supply_before_a_displacement():
    st, gt = scenario(players=3, supply_limited=True)
    put_vesicle(st, ORG_ROUGH, 0, 1, ORG_ROUGH, 4)
    put_vesicle(st, ORG_ROUGH, 1, 1, ORG_ROUGH, 4)
    put_vesicle(st, ORG_ROUGH, 2, 2, ORG_ROUGH, 4)
    st.stock[0] = R(mrna=2)
    st.stock[2] = R(protein=6)
    sync_supply(st, gt)
    assert st.supply[PROTEIN] == 0
    # the victim's 4 Protein would return first, but k is bounded by the supply at the start
    assert options(st, gt, 0, "rough_er") == []
    st.stock[2] = R(protein=5)
    sync_supply(st, gt)
    assert options(st, gt, 0, "rough_er") == [(1, 1, 0), (1, 2, 0), (1, 3, 0)]
    play(st, gt, 0, place("rough_er", 1, 3))
    assert vesicle(st, ORG_ROUGH, 2) == (0, ORG_ROUGH, 1, NO_GOLGI)
    assert st.supply[PROTEIN] == 4 and st.shortfall.tolist() == R()


def test_limited_all_gain_resolves_in_turn_order_from_the_marker_holder():
    st, gt = scenario(players=3, supply_limited=True)
    st.g[G_MARKER] = 2
    st.stock[0] = R(atp=27)
    sync_supply(st, gt)
    assert st.supply[ATP] == 3
    resolve_event(st, gt, EVENT["Energy Surplus"])  # +2 ATP each: seat 2, then 0, then 1
    assert st.stock[:, ATP].tolist() == [28, 0, 2]
    assert st.shortfall.tolist() == R(atp=3) and st.supply[ATP] == 0


def test_limited_location_bonus_is_gained_before_an_additional_resource():
    st, gt = scenario(supply_limited=True)
    st.bonus_res[LOC["card_area"]] = LIPID  # a bonus of 2 Lipid at the Card Area
    st.bonus_n[LOC["card_area"]] = 2
    st.slot_card[:] = [33, 20, 21, 22]  # 33 Lipid Droplet: +3 Lipid
    st.stock[1] = R(lipid=12)
    sync_supply(st, gt)
    assert st.supply[LIPID] == 3
    play(st, gt, 0, place("card_area", 0))
    assert flow(st, 0, "gain_location_bonus") == R(lipid=2)
    assert flow(st, 0, "gain_additional_resource") == R(lipid=1)
    assert st.stock[0].tolist() == R(lipid=3) and st.shortfall.tolist() == R(lipid=2)
    assert discard(st) == [33]
