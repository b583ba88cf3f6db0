"""Hypothesis: perturbed game data (card values, collect-spot costs and yields, Card Area prices,
budding locations, starting ATP, max_batch, grey flasks, rule switches, small limited supplies,
smaller decks)
played by the kernel and replayed by the referee. For every example the two agree field for
field (tests/parity.py `run_parity`) and every step of every game keeps the invariants of
tests/test_invariants.py."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcell.config.checks import check_game
from simcell.config.load import load_default_game
from simcell.config.model import GameDefinition
from simcell.vocabulary import N_RESOURCES, RESOURCES, ROUGH_ER_TYPES

from .parity import run_parity
from .test_invariants import check_traced_game

BASE = load_default_game()
GAMES_PER_EXAMPLE = 2
COLLECT_SPOTS = [
    (li, si)
    for li, loc in enumerate(BASE.board.locations)
    if loc.action == "collect"
    for si in range(len(loc.spots))
]
RECEPTORS = ("protein_receptor", "steroid_receptor")
# the files check_game names in its messages (none is read)
CHECK_FILES = {"cards": Path("cards.toml"), "epigenetic": Path("epigenetic.toml")}


def sparse_vector(amount: st.SearchStrategy[int], max_size: int) -> st.SearchStrategy[tuple[int, ...]]:
    """A resource vector with at most `max_size` non-zero entries."""
    return st.dictionaries(st.integers(0, N_RESOURCES - 1), amount, max_size=max_size).map(
        lambda d: tuple(d.get(r, 0) for r in range(N_RESOURCES))
    )


@st.composite
def card_values(draw, card, max_batch: int) -> dict:
    """New values for every field of one card's type."""
    kind = card.type
    if kind == "additional_resource":
        return {"gain": draw(sparse_vector(st.integers(1, 3), 3).filter(any))}
    values = {"atp": draw(st.integers(0, 4)), "hp": draw(st.integers(0, 9))}
    if kind == "enzyme":
        values["protein"] = draw(st.integers(0, 5))
        values["carb"] = draw(st.integers(0, 3))
    elif kind in ROUGH_ER_TYPES:
        values["protein"] = draw(st.integers(0, max_batch))
        values["golgi"] = draw(st.sampled_from(("carb", "lipid")))
    elif kind == "steroid_hormone":
        values["lipid"] = draw(st.integers(0, max_batch))
        values["golgi"] = draw(st.sampled_from(("carb", "lipid")))
    if kind in RECEPTORS:
        values["bonus_per_match"] = draw(st.integers(0, 3))
    return values


def completable(card, max_batch: int, supply: tuple[int, ...] | None):
    """The card with its needs cut so it can be completed: the ER load within max_batch, and
    with a limited supply every need within the component count."""
    changes = {}
    if card.type in ROUGH_ER_TYPES:
        changes["protein"] = min(card.protein, max_batch)
    if card.type == "steroid_hormone":
        changes["lipid"] = min(card.lipid, max_batch)
    if supply is not None:
        for name in ("atp", "protein", "carb", "lipid"):
            cap = supply[RESOURCES.index(name)]
            changes[name] = min(changes.get(name, getattr(card, name)), cap)
    return dataclasses.replace(card, **changes)


@st.composite
def perturbed_games(draw) -> GameDefinition:
    board, rules = BASE.board, BASE.rules
    max_batch = draw(st.integers(3, 12))
    limited = draw(st.booleans())
    supply = tuple(
        draw(st.one_of(st.integers(1, 6), st.integers(1, full))) for full in board.supply
    )
    new_rules = dataclasses.replace(
        rules,
        max_batch=max_batch,
        supply_limited=limited,
        epigenetic=draw(st.booleans()),
        grey_per_player=draw(st.integers(0, 2)),
        turn_order=draw(st.sampled_from(("marker", "rotate"))),
        laureates_holder_may_take=draw(st.booleans()),
        two_player_remove_detox=draw(st.booleans()),
        placement_order=draw(st.sampled_from(("clockwise", "snake_pass", "snake_round"))),
        laureates_once_each=draw(st.booleans()),
    )

    locations = list(board.locations)
    for li, si in draw(st.lists(st.sampled_from(COLLECT_SPOTS), max_size=5, unique=True)):
        spots = list(locations[li].spots)
        spots[si] = dataclasses.replace(
            spots[si],
            cost=draw(sparse_vector(st.integers(1, 2), 2)),
            gain=draw(sparse_vector(st.integers(1, 4), 2)),
        )
        locations[li] = dataclasses.replace(locations[li], spots=tuple(spots))
    new_board = dataclasses.replace(
        board,
        supply=supply,
        locations=tuple(locations),
        slot_prices=tuple(draw(st.integers(0, 4)) for _ in board.slot_prices),
        budding_locations=tuple(draw(st.integers(1, 4)) for _ in board.budding_locations),
        starting_atp=tuple(draw(st.integers(0, 8)) for _ in board.starting_atp),
    )

    cards = list(BASE.cards)
    for i in draw(st.lists(st.integers(0, len(cards) - 1), max_size=12, unique=True)):
        cards[i] = dataclasses.replace(cards[i], **draw(card_values(cards[i], max_batch)))
    cards = [completable(c, max_batch, supply if limited else None) for c in cards]
    if draw(st.booleans()):  # a smaller deck with gaps in its ids: reshuffles, empty slots
        detox = [c for c in cards if c.type == "detox"]  # enough to remove at 2 players
        others = [c for c in cards if c.type != "detox"]
        need = len(board.slot_prices) + board.cards_dealt * 5 - len(detox)
        keep = draw(st.lists(st.sampled_from(others), min_size=need, max_size=len(others), unique=True))
        cards = sorted(detox + keep, key=lambda c: c.id)
    return dataclasses.replace(BASE, board=new_board, cards=tuple(cards), rules=new_rules)


COUNTS: Counter = Counter()


@settings(
    max_examples=80, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    game=perturbed_games(),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**31 - 1),
    first=st.integers(0, 100_000),
)
def test_perturbed_data_parity_and_invariants(game, players, seed, first) -> None:
    check_game(game, (players,), CHECK_FILES, {})  # the perturbed data is a playable game
    games = range(first, first + GAMES_PER_EXAMPLE)
    failures = run_parity(game, players, seed, games, COUNTS)
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:10])
    for g in games:
        check_traced_game(game, players, seed, g)
