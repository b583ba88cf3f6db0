"""Kernel-referee parity: the numba kernel's games, replayed by the plain-Python referee, agree
action for action (legal sets, shuffles) and field for field (every record), over every player
count, every shipped config, every rule option and data that forces the rare rule paths."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from simcell.config.load import load_default_game, load_run_config
from simcell.vocabulary import TRACE_DECISION, TRACE_END, TRACE_SHUFFLE, CHANCE_RESHUFFLE
from simcell.referee import GameMeta, RefereeError, replay
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_traced

from .conftest import CONFIGS
from .parity import run_parity, with_board, with_rules

SEED = 20261130
PARITY_COUNTS: Counter = Counter()  # rule paths exercised, printed at the end of the run

FLOORS = {
    "games": 2000,
    "displacements": 100,
    "reshuffles": 20,
    "empty_slots": 20,
    "supply_shortfalls": 50,
    "most_completed_ties": 50,
    "ties_for_win": 20,
    "hp_event_losses": 20,
}


def _small_deck(game, keep: int):
    """The first `keep` cards by id: the deck and discard pile run dry, slots stay empty."""
    return dataclasses.replace(game, cards=game.cards[:keep])


def parity_cases():
    base = load_default_game()
    cases = []
    for p in (2, 3, 4, 5):
        cases.append((f"default-{p}p", base, p, 230))
    for path in sorted(CONFIGS.glob("*.toml")):
        rc = load_run_config(path)
        if rc.game.content_hash != base.content_hash:
            for p in rc.players:
                cases.append((f"{path.stem}-{p}p", rc.game, p, 60))
    variants = {
        "epigenetic": with_rules(base, epigenetic=True),
        "limited": with_rules(base, supply_limited=True),
        "grey0": with_rules(base, grey_per_player=0),
        "grey2": with_rules(base, grey_per_player=2),
        "rotate": with_rules(base, turn_order="rotate"),
        "holder-barred": with_rules(base, laureates_holder_may_take=False),
        "flat-ladder": with_board(base, starting_atp=(4, 4, 4, 4, 4)),
        "snake-pass": with_rules(base, placement_order="snake_pass"),
        "snake-round": with_rules(base, placement_order="snake_round"),
        "snake-round-rotate": with_rules(base, placement_order="snake_round", turn_order="rotate"),
        "snake-pass-barred": with_rules(base, placement_order="snake_pass",
                                        laureates_holder_may_take=False),
        "laureates-once": with_rules(base, laureates_once_each=True),
        "laureates-once-snake-barred": with_rules(base, laureates_once_each=True,
                                                  placement_order="snake_round",
                                                  laureates_holder_may_take=False),
        "starting-hp": with_rules(base, starting_hp_by_seat=(0, 1, 2, 3, 4)),
        "first-marker-falling": with_rules(base, first_marker_hp=(4, 2, 0)),
        "goals-open-round-4": with_rules(base, goals_open_round=4),
        "laureates-marker-only": with_rules(base, laureates_marker_only=True),
        "all-options": with_rules(
            base, epigenetic=True, supply_limited=True, grey_per_player=2, turn_order="rotate",
            laureates_holder_may_take=False, two_player_remove_detox=True,
        ),
    }
    for name, game in variants.items():
        for p in (2, 3, 4, 5):
            cases.append((f"{name}-{p}p", game, p, 25))
    cases.append(("detox-removal-2p", with_rules(base, two_player_remove_detox=True), 2, 60))
    # forcing data: one budding location per organelle (displacement everywhere), a small deck
    # (reshuffles, empty Card Area slots), a scarce limited supply (shortfalls)
    tight = with_board(base, budding_locations=(1, 1, 1))
    small = _small_deck(base, 24)
    scarce = with_rules(
        with_board(base, supply=(8, 6, 5, 8, 25)), supply_limited=True
    )
    for p in (3, 5):
        cases.append((f"one-budding-{p}p", tight, p, 30))
        cases.append((f"small-deck-{p}p", small, p, 30))
        cases.append((f"scarce-supply-{p}p", scarce, p, 30))
    return cases


CASES = parity_cases()


@pytest.mark.parametrize(("name", "game", "players", "n"), CASES, ids=[c[0] for c in CASES])
def test_kernel_and_referee_agree(name, game, players, n) -> None:
    failures = run_parity(game, players, SEED, range(n), PARITY_COUNTS)
    assert not failures, f"{len(failures)} disagreements in {name}:\n" + "\n".join(failures[:10])


PLANNER_CASES = [
    (name, changes, p)
    for name, changes in (("laureates-once", {"laureates_once_each": True}),
                          ("snake-round", {"placement_order": "snake_round"}),
                          ("snake-pass", {"placement_order": "snake_pass"}),
                          ("starting-hp", {"starting_hp_by_seat": (0, 1, 2, 3, 4)}),
                          ("first-marker-falling", {"first_marker_hp": (4, 2, 0)}),
                          ("goals-open-round-4", {"goals_open_round": 4}),
                          ("laureates-marker-only", {"laureates_marker_only": True}))
    for p in (2, 5)
]


@pytest.mark.parametrize(("name", "changes", "players"), PLANNER_CASES,
                         ids=[f"planner-{c[0]}-{c[2]}p" for c in PLANNER_CASES])
def test_planner_games_agree_under_the_seat_switches(name, changes, players) -> None:
    """The planner's games under the seat switches replay in the referee: the bot only ever
    takes what the rules list (a Laureates visit or a goal marker it may not take is never
    offered, so never valued or chosen), and it does visit Laureates."""
    game = with_rules(load_default_game(), **changes)
    counts: Counter = Counter()
    failures = run_parity(game, players, SEED, range(8), counts, homogeneous("planner", players))
    assert not failures, f"{len(failures)} disagreements in {name}:\n" + "\n".join(failures[:10])
    assert counts["games"] == 8 and counts["laureates"] > 0
    # with Laureates giving the marker only, no goal marker can be placed in the game
    assert (counts["goal_markers"] == 0) == bool(changes.get("laureates_marker_only"))


def test_parity_exercised_every_rule_path() -> None:
    """Floors on the rule paths the parity games above exercised (runs after them)."""
    if PARITY_COUNTS["games"] == 0:
        pytest.fail("run the whole module: the parity games fill the counts")
    missing = {k: (PARITY_COUNTS[k], floor) for k, floor in FLOORS.items() if PARITY_COUNTS[k] < floor}
    assert not missing, f"rule paths below their floors (count, floor): {missing}"


# -- tampered kernel traces are rejected -----------------------------------------------------
def _entries(trace):
    """(position, tag) of every entry of a trace."""
    out, i = [], 0
    while i < len(trace):
        tag = int(trace[i])
        out.append((i, tag))
        if tag == TRACE_SHUFFLE:
            i += 4 + int(trace[i + 3])
        elif tag == TRACE_DECISION:
            i += 5 + int(trace[i + 3])
        else:
            i += 1
    return out


def _reshuffles(words):
    """Positions of reshuffle entries of two or more cards."""
    return [
        pos for pos, tag in _entries(words)
        if tag == TRACE_SHUFFLE and words[pos + 1] == CHANCE_RESHUFFLE and words[pos + 3] > 1
    ]


def _traced_with_reshuffle():
    game = _small_deck(load_default_game(), 24)
    for g in range(200):
        traced = play_traced(game, 5, SEED, g)
        if _reshuffles([int(w) for w in traced.trace]):
            return game, g, traced
    raise AssertionError("no reshuffle of two or more cards in 200 small-deck games")


def _meta(g, players):
    return GameMeta(game=g, deal=g, rotation=0, seat_player=tuple(range(players)),
                    seat_policy=(0,) * players)


def test_untampered_kernel_trace_replays() -> None:
    game, g, traced = _traced_with_reshuffle()
    replay(game, 5, traced.trace, _meta(g, 5))


def _tamper_decision(trace, drop: bool):
    words = [int(w) for w in trace]
    for pos, tag in _entries(words):
        if tag == TRACE_DECISION and words[pos + 3] >= 3:
            n = words[pos + 3]
            legal = words[pos + 4 : pos + 4 + n]
            chosen = words[pos + 4 + n]
            if drop:
                victim = next(c for c in legal if c != chosen)
                legal = [c for c in legal if c != victim]
            else:
                legal = sorted(legal + [max(legal) + 1])
            return words[:pos + 3] + [len(legal)] + legal + [chosen] + words[pos + 5 + n:]
    raise AssertionError("no decision with three legal actions")


@pytest.mark.parametrize("drop", [True, False], ids=["legal-action-dropped", "illegal-action-added"])
def test_tampered_legal_set_is_rejected(drop: bool) -> None:
    game, g, traced = _traced_with_reshuffle()
    with pytest.raises(RefereeError):
        replay(game, 5, _tamper_decision(traced.trace, drop), _meta(g, 5))


def test_card_dropped_from_a_reshuffle_is_rejected() -> None:
    game, g, traced = _traced_with_reshuffle()
    words = [int(w) for w in traced.trace]
    pos = _reshuffles(words)[0]
    n = words[pos + 3]
    tampered = words[:pos + 3] + [n - 1] + words[pos + 4 : pos + 4 + n - 1] + words[pos + 4 + n:]
    with pytest.raises(RefereeError, match="reshuffle"):
        replay(game, 5, tampered, _meta(g, 5))


def test_trace_ends_with_end_tag() -> None:
    traced = play_traced(load_default_game(), 4, SEED, 0)
    assert int(traced.trace[-1]) == TRACE_END
