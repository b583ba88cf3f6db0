"""The referee: self-played games replay cleanly and their records hold the invariants of
kernel-contract.md; tampered traces are rejected; every rule option is played; hand-built
scenarios pin down the rules that are easy to get wrong (docs/rules.md)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import numpy as np
import pytest

from simcell.config.load import load_default_game
from simcell.config.model import GameDefinition
from simcell.vocabulary import (
    ACT_EXHAUST,
    ACT_PASS,
    ACT_PLACE,
    ATP,
    CARB,
    CHANCE_DECK_ORDER,
    CHANCE_EVENT_ORDER,
    CHANCE_EVENT_REMOVAL,
    CHANCE_RESHUFFLE,
    FLASK_GREY,
    FLASK_OWN,
    GOLGI_CARB,
    GOLGI_LIPID,
    HP_SOURCES,
    LIPID,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MRNA,
    N_RESOURCES,
    ORG_GOLGI,
    ORG_ROUGH,
    ORG_SMOOTH,
    PROTEIN,
    SOURCE_RADIX,
    TRACE_DECISION,
    TRACE_END,
    TRACE_SHUFFLE,
    decode_action,
    encode_action,
    flow_layout,
    game_record_dtype,
    player_record_dtype,
)
from simcell.referee import (
    GameMeta,
    GameState,
    RefereeError,
    apply,
    format_log,
    legal_actions,
    new_game_state,
    play_game,
    play_random_game,
    record_sizes,
    replay,
    replay_game,
)
from simcell.referee.records import RefereeResult, build_result
from simcell.referee.rounds import refresh_card_area, resolve_event, start_round
from simcell.referee.scoring import score_game
from simcell.referee.selfplay import RandomTable
from simcell.referee.state import Vesicle

GAME = load_default_game()


def variant(game: GameDefinition = GAME, **rules) -> GameDefinition:
    return dataclasses.replace(game, rules=dataclasses.replace(game.rules, **rules))


def location_index(game: GameDefinition, location_id: str) -> int:
    return next(i for i, loc in enumerate(game.board.locations) if loc.id == location_id)


def card_id(game: GameDefinition, name: str) -> int:
    return next(c.id for c in game.cards if c.name == name)


def self_played(game: GameDefinition, players: int, seed: int) -> tuple[GameMeta, list[int]]:
    meta = GameMeta(
        game=seed,
        deal=seed,
        rotation=0,
        seat_player=tuple(range(players)),
        seat_policy=(0,) * players,
    )
    return meta, play_random_game(game, players, random.Random(seed * 7919 + players), meta)


# -- trace helpers ---------------------------------------------------------------------------
def entries(trace: list[int]) -> list[tuple[int, int]]:
    """(start, end) of every trace entry."""
    out, pos = [], 0
    while pos < len(trace):
        tag = trace[pos]
        if tag == TRACE_SHUFFLE:
            end = pos + 4 + trace[pos + 3]
        elif tag == TRACE_DECISION:
            end = pos + 5 + trace[pos + 3]
        else:
            assert tag == TRACE_END
            end = pos + 1
        out.append((pos, end))
        pos = end
    return out


def decision_entries(trace: list[int], min_legal: int = 1) -> list[tuple[int, int]]:
    return [
        (s, e) for s, e in entries(trace) if trace[s] == TRACE_DECISION and trace[s + 3] >= min_legal
    ]


def rebuild_decision(trace, start, end, *, seat=None, automatic=None, legal=None, chosen=None):
    old_legal = trace[start + 4 : end - 1]
    legal = old_legal if legal is None else legal
    entry = [
        TRACE_DECISION,
        trace[start + 1] if seat is None else seat,
        trace[start + 2] if automatic is None else automatic,
        len(legal),
        *legal,
        trace[end - 1] if chosen is None else chosen,
    ]
    return trace[:start] + entry + trace[end:]


# -- invariants --------------------------------------------------------------------------------
def check_records(game: GameDefinition, players: int, state: GameState, result: RefereeResult):
    sizes = record_sizes(game)
    p_dtype = player_record_dtype(sizes.n_locations, sizes.max_rounds, len(game.goals))
    g_dtype = game_record_dtype(sizes.n_events, sizes.n_goals_max, sizes.max_rounds)
    layout = flow_layout(sizes.n_locations)
    assert len(result.player_records) == players
    for seat, rec in enumerate(result.player_records):
        assert list(rec) == [f[0] for f in p_dtype]
        assert rec["seat"] == seat
        # HP sources add up to the final HP; HP is never negative.
        assert sum(rec["hp_by_source"]) == rec["final_hp"] >= 0
        rounds = state.rounds
        assert all(h >= 0 for h in rec["hp_by_round"][:rounds])
        assert rec["hp_by_round"][rounds:] == [-1] * (sizes.max_rounds - rounds)
        assert rec["hp_by_round"][rounds - 1] <= rec["final_hp"]
        # Flows: gains - spends = final stock, per resource.
        flows = rec["flows"]
        for r in range(N_RESOURCES):
            gains = sum(flows[i][r] for i in range(layout["n_gain_rows"]))
            spends = sum(flows[i][r] for i in range(layout["n_gain_rows"], layout["n_spend_end"]))
            assert gains - spends == rec["stock"][r]
            assert all(flows[i][r] >= 0 for i in range(layout["n_rows"]))
        # Cargo: loaded - returned - lost = cargo on the player's own vesicles.
        on_board = state.cargo_of(seat)
        for r in range(N_RESOURCES):
            loaded = flows[layout["cargo_loaded"]][r]
            returned = flows[layout["cargo_returned"]][r]
            lost = flows[layout["cargo_lost"]][r]
            assert loaded - returned - lost == on_board[r]
        assert sum(rec["completed_by_type"]) == bin(rec["completed_mask"]).count("1")
        assert rec["kept_mask"] & ~rec["dealt_mask"] == 0
        assert bin(rec["kept_mask"]).count("1") == game.board.cards_dealt - 1
        # Goal markers: one per card at most, as many as placed, each in a round played and
        # numbered in its card's claim order; the cards' end bonuses add up to the source's.
        placed = [k for k, o in enumerate(rec["goal_marker_order"]) if o > 0]
        assert len(placed) == rec["goal_markers_placed"]
        assert all(1 <= rec["goal_marker_round"][k] <= rounds for k in placed)
        assert all(rec["goal_marker_round"][k] == 0 for k in range(len(game.goals)) if k not in placed)
        assert all(o <= game.board.max_markers_per_goal for o in rec["goal_marker_order"])
        assert sum(rec["goal_bonus_by_goal"]) == rec["hp_by_source"][HP_SOURCES.index("goal_bonus")]
        assert sum(rec["placements_by_location"]) <= rounds * (
            game.board.flasks(players) + game.board.grey_flasks
        )
    for k in range(len(game.goals)):  # each goal card's markers: claims 1, 2, ... in round order
        claims = sorted((rec["goal_marker_order"][k], rec["goal_marker_round"][k])
                        for rec in result.player_records if rec["goal_marker_order"][k] > 0)
        assert [o for o, _ in claims] == list(range(1, len(claims) + 1))
        assert [r for _, r in claims] == sorted(r for _, r in claims)
    shares = [rec["win_share"] for rec in result.player_records]
    assert sum(shares) == pytest.approx(1.0)
    best = max(rec["final_hp"] for rec in result.player_records)
    for rec in result.player_records:
        assert rec["rank"] == 1 + sum(1 for o in result.player_records if o["final_hp"] > rec["final_hp"])
        assert (rec["win_share"] > 0) == (rec["final_hp"] == best)
    g = result.game_record
    assert list(g) == [f[0] for f in g_dtype]
    assert g["tie"] == (sum(1 for s in shares if s > 0) > 1)
    assert g["rounds"] == game.rounds(players)
    revealed = [e for e in g["event_order"] if e >= 0]
    assert len(revealed) == g["rounds"] - 1
    assert len(set(revealed)) == len(revealed)
    assert not any((g["events_removed"] >> e) & 1 for e in revealed)
    assert bin(g["events_removed"]).count("1") == game.board.events_set_aside[players - 2]
    in_play = [x for x in g["goals_in_play"] if x >= 0]
    assert len(in_play) == game.board.goals_revealed[players - 2]
    assert all(0 <= s < players for s in g["first_player"][: g["rounds"]])
    assert g["reshuffles"] == state.reshuffles
    # Records fit the kernel's numpy dtypes (no overflow, masks as unsigned 64-bit).
    np.array([tuple(rec.values()) for rec in result.player_records], dtype=p_dtype)
    np.array([tuple(g.values())], dtype=g_dtype)
    check_cards_in_one_place(game, state)


def check_cards_in_one_place(game: GameDefinition, state: GameState) -> None:
    places = Counter()
    for pile in (state.deck, state.discard, state.detox_removed):
        places.update(pile)
    places.update(c for c in state.card_area if c is not None)
    for p in state.seats:
        places.update(p.hand)
        places.update(p.completed)
    assert places == Counter(c.id for c in game.cards)
    for p in state.seats:
        assert not any(state.cards[c].type == "additional_resource" for c in p.hand)


def play_and_check(game: GameDefinition, players: int, seed: int) -> tuple[GameState, RefereeResult]:
    meta, trace = self_played(game, players, seed)
    state = replay_game(game, players, trace, meta)
    result = build_result(state)
    check_records(game, players, state, result)
    assert result.player_records[0]["game"] == seed
    assert format_log(game, players, result).endswith("\n")
    return state, result


# -- random games ------------------------------------------------------------------------------
@pytest.mark.parametrize("players", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_random_games_replay_cleanly(players):
    for seed in range(60):
        play_and_check(GAME, players, seed)


def test_replay_is_deterministic_and_matches_self_play():
    meta, trace = self_played(GAME, 4, 11)
    table = RandomTable(random.Random(11 * 7919 + 4))
    played = build_result(play_game(GAME, 4, meta, table))
    first, second = replay(GAME, 4, trace, meta), replay(GAME, 4, np.array(trace), meta)
    assert first.player_records == second.player_records == played.player_records
    assert first.game_record == second.game_record == played.game_record


def test_trace_starts_with_setup_shuffles_in_contract_order():
    meta, trace = self_played(GAME, 3, 5)
    shuffles = [(trace[s + 1], trace[s + 2]) for s, _ in entries(trace) if trace[s] == TRACE_SHUFFLE]
    assert shuffles[:3] == [(CHANCE_EVENT_REMOVAL, 0), (CHANCE_EVENT_ORDER, 0), (2, 0)]
    assert shuffles[3] == (CHANCE_DECK_ORDER, 0)
    assert trace[-1] == TRACE_END


def test_log_names_cards_events_and_winner():
    meta, trace = self_played(GAME, 4, 3)
    result = replay(GAME, 4, trace, meta)
    text = format_log(GAME, 4, result)
    assert "== Setup ==" in text and "== Final score ==" in text
    assert "Winner: seat" in text or "Tie, the win is split" in text
    revealed = [e for e in result.game_record["event_order"] if e >= 0]
    assert any(e.name in text for e in GAME.events if e.id == revealed[0])
    assert "[automatic]: pass" in text
    assert f"== Round {result.game_record['rounds']} (final round" in text


# -- tampered traces ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sample() -> tuple[GameMeta, list[int]]:
    return self_played(GAME, 3, 21)


def test_dropping_a_legal_action_is_rejected(sample):
    meta, trace = sample
    start, end = decision_entries(trace, min_legal=3)[10]
    legal, chosen = trace[start + 4 : end - 1], trace[end - 1]
    dropped = next(c for c in legal if c != chosen)
    tampered = rebuild_decision(trace, start, end, legal=[c for c in legal if c != dropped])
    with pytest.raises(RefereeError, match=r"game 21, decision \d+ .*seat \d.*missing from the trace"):
        replay(GAME, 3, tampered, meta)


def test_an_extra_illegal_action_is_rejected(sample):
    meta, trace = sample
    start, end = decision_entries(trace, min_legal=3)[12]
    illegal = encode_action(ACT_EXHAUST, p1=PROTEIN)  # Protein can never be taken by exhausting
    legal = sorted(trace[start + 4 : end - 1] + [illegal])
    tampered = rebuild_decision(trace, start, end, legal=legal)
    with pytest.raises(RefereeError, match="extra in the trace.*exhaust a flask for 1 Protein"):
        replay(GAME, 3, tampered, meta)


def test_an_illegal_choice_is_rejected(sample):
    meta, trace = sample
    start, end = decision_entries(trace, min_legal=3)[5]
    illegal = encode_action(ACT_EXHAUST, p1=PROTEIN)
    tampered = rebuild_decision(trace, start, end, chosen=illegal)
    with pytest.raises(RefereeError, match="chosen action .* is not legal"):
        replay(GAME, 3, tampered, meta)


def test_wrong_automatic_flag_and_wrong_seat_are_rejected(sample):
    meta, trace = sample
    start, end = decision_entries(trace, min_legal=2)[0]
    with pytest.raises(RefereeError, match="automatic flag"):
        replay(GAME, 3, rebuild_decision(trace, start, end, automatic=1), meta)
    with pytest.raises(RefereeError, match="the trace has seat"):
        replay(GAME, 3, rebuild_decision(trace, start, end, seat=(trace[start + 1] + 1) % 3), meta)
    auto = next((s, e) for s, e in decision_entries(trace) if trace[s + 3] == 1)
    with pytest.raises(RefereeError, match="automatic flag"):
        replay(GAME, 3, rebuild_decision(trace, *auto, automatic=0), meta)


def test_unordered_legal_list_is_rejected(sample):
    meta, trace = sample
    start, end = decision_entries(trace, min_legal=3)[3]
    legal = list(reversed(trace[start + 4 : end - 1]))
    with pytest.raises(RefereeError, match="not in ascending order"):
        replay(GAME, 3, rebuild_decision(trace, start, end, legal=legal), meta)


def test_dropping_a_card_from_a_reshuffle_is_rejected():
    for seed in range(200):
        meta, trace = self_played(GAME, 5, seed)
        found = [
            (s, e) for s, e in entries(trace)
            if trace[s] == TRACE_SHUFFLE and trace[s + 1] == CHANCE_RESHUFFLE
        ]
        if found:
            break
    else:
        pytest.fail("no self-played game reshuffled the discard pile")
    start, end = found[0]
    assert trace[start + 2] == 1  # the first reshuffle has index 1
    dropped = trace[start + 4]
    tampered = trace[:start] + [TRACE_SHUFFLE, CHANCE_RESHUFFLE, 1, trace[start + 3] - 1] + trace[
        start + 5 : end
    ] + trace[end:]
    with pytest.raises(RefereeError, match=rf"reshuffle 1.*missing \[{dropped}\]"):
        replay(GAME, 5, tampered, meta)
    wrong_index = trace[: start + 2] + [2] + trace[start + 3 :]
    with pytest.raises(RefereeError, match="index 2; the referee expects reshuffle"):
        replay(GAME, 5, wrong_index, meta)


def test_setup_shuffle_with_a_foreign_card_and_short_traces_are_rejected(sample):
    meta, trace = sample
    start, end = next(
        (s, e) for s, e in entries(trace) if trace[s] == TRACE_SHUFFLE and trace[s + 1] == CHANCE_DECK_ORDER
    )
    swapped = list(trace)
    swapped[start + 4] = 63  # not a card of the game
    with pytest.raises(RefereeError, match="deck_order.*extra \\[63\\]"):
        replay(GAME, 3, swapped, meta)
    with pytest.raises(RefereeError, match="ends early"):
        replay(GAME, 3, trace[:-40], meta)
    with pytest.raises(RefereeError, match="follow TRACE_END"):
        replay(GAME, 3, trace + [TRACE_END], meta)


# -- rule options -------------------------------------------------------------------------------
def turns(result: RefereeResult):
    return [e for e in result.log if e.kind == "turn"]


def test_epigenetic_variant():
    game = variant(epigenetic=True)
    bonuses = 0
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for seed in range(10):
            state, result = play_and_check(game, players, seed)
            assert len({p.epigenetic for p in state.seats}) == players
            for p in state.seats:
                card = next(c for c in game.epigenetic if c.id == p.epigenetic)
                extra = sum(e.n for e in card.effects if e.kind == "extra_vesicle")
                assert p.disks == game.board.vesicles_per_player + extra
                start = sum(e.n for e in card.effects if e.kind == "start_bonus")
                assert result.player_records[p.seat]["flows"][state.row("gain_start_bonus")][ATP] == start
            bonuses += sum(1 for t in turns(result) for n in t.detail["notes"] if n[0] == "yield_bonus")
    assert bonuses > 0


def test_limited_supply():
    game = variant(supply_limited=True)
    shortfall = 0
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for seed in range(10):
            state, result = play_and_check(game, players, seed)
            assert all(
                used <= cap for used, cap in zip(result.game_record["peak_use"], game.board.supply)
            )
            shortfall += sum(result.game_record["supply_shortfall"])
    assert shortfall > 0


@pytest.mark.parametrize("grey", [0, 2])
def test_grey_flasks_per_player(grey):
    game = variant(grey_per_player=grey)
    most_in_a_round = 0
    for players in (2, 4):
        for seed in range(10):
            _, result = play_and_check(game, players, seed)
            per_round = Counter(
                (t.round, t.seat) for t in turns(result)
                if decode_action(t.detail["code"])[1] == FLASK_GREY
                and decode_action(t.detail["code"])[0] == ACT_PLACE
            )
            most_in_a_round = max([most_in_a_round, *per_round.values()])
            if grey == 0:
                assert all(r["grey_used"] == 0 for r in result.player_records)
    assert most_in_a_round == grey


def test_two_player_detox_removal():
    game = variant(two_player_remove_detox=True)
    detox = {c.id for c in game.cards if c.type == "detox"}
    for seed in range(10):
        state, result = play_and_check(game, 2, seed)
        removed = result.game_record["detox_removed"]
        assert bin(removed).count("1") == game.board.two_player_detox_removed
        assert all(c in detox for c in state.detox_removed)
    # Only at 2 players.
    state, result = play_and_check(game, 3, 0)
    assert result.game_record["detox_removed"] == 0


def test_turn_order_rotate():
    game = variant(turn_order="rotate")
    for players in (2, 3, 5):
        for seed in range(8):
            _, result = play_and_check(game, players, seed)
            rounds = result.game_record["rounds"]
            assert result.game_record["first_player"][:rounds] == [r % players for r in range(rounds)]
            for t in turns(result):
                assert not any(n[0] == "marker" for n in t.detail["notes"])


def test_laureates_holder_may_not_take():
    game = variant(laureates_holder_may_take=False)
    laureates = location_index(game, "laureates")
    taken = 0
    for players in (2, 3, 4):
        for seed in range(8):
            _, result = play_and_check(game, players, seed)
            first = result.game_record["first_player"]
            for t in turns(result):
                kind, _, target, *_ = decode_action(t.detail["code"])
                if kind == ACT_PLACE and target == laureates:
                    taken += 1
                    assert t.seat != first[t.round - 1]
            assert all(r["laureates_as_holder"] == 0 for r in result.player_records)
    assert taken > 0


def test_several_options_at_once():
    game = variant(
        epigenetic=True, supply_limited=True, grey_per_player=2, turn_order="rotate",
        laureates_holder_may_take=False, two_player_remove_detox=True,
    )
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for seed in range(5):
            play_and_check(game, players, seed)


# -- hand-built scenarios -----------------------------------------------------------------------
def table(game: GameDefinition = GAME, players: int = 3) -> GameState:
    """A table at the start of round 1 with empty stocks, hands and board."""
    state = new_game_state(game, players, GameMeta())
    state.goals_in_play = [0, 1, 2]
    state.goal_markers = [[], [], []]
    state.event_deck = [0]
    start_round(state, 1)
    return state


def codes_at(state: GameState, location_id: str, flask: int = FLASK_OWN) -> list[tuple]:
    li = location_index(state.game, location_id)
    return [
        decode_action(c)[3:] for c in legal_actions(state)
        if decode_action(c)[0] == ACT_PLACE and decode_action(c)[2] == li and decode_action(c)[1] == flask
    ]


def place(location_id: str, p1=0, p2=0, p3=0, flask=FLASK_OWN, game=GAME) -> int:
    return encode_action(ACT_PLACE, flask, location_index(game, location_id), p1, p2, p3)


def test_displacement_only_when_full_and_only_of_rivals():
    state = table()
    state.seats[0].stock[MRNA] = 2
    state.budding[ORG_ROUGH] = [Vesicle(1, ORG_ROUGH, 4), None, Vesicle(0, ORG_ROUGH, 1)]
    assert codes_at(state, "rough_er") == [(1, 0, 0), (2, 0, 0)]  # a free location: no victim
    state.budding[ORG_ROUGH][1] = Vesicle(2, ORG_ROUGH, 2)
    state.seats[0].disks = 2  # one free disk left
    # Full: one option per rival vesicle (budding 0 and 1), never the player's own (budding 2).
    assert codes_at(state, "rough_er") == [(1, 1, 0), (1, 2, 0), (2, 1, 0), (2, 2, 0)]
    apply(state, place("rough_er", 2, 2))
    assert state.budding[ORG_ROUGH][1] == Vesicle(0, ORG_ROUGH, 2)
    victim = state.seats[2]
    assert victim.vesicles_lost == 1 and state.free_disks(2) == victim.disks
    assert victim.flows[state.row("cargo_lost")][PROTEIN] == 2
    assert state.seats[0].flows[state.row("spend_spot_cost", location_index(GAME, "rough_er"))][MRNA] == 2
    # All three Rough ER locations now hold vesicles; seat 1 (to move) may displace 0's or 2's.
    assert state.to_move == 1
    state.seats[1].stock[MRNA] = 1
    assert codes_at(state, "rough_er") == [(1, 2, 0), (1, 3, 0)]
    # No free disk, no vesicle placement.
    state.seats[1].disks = 1
    assert codes_at(state, "rough_er") == []


def test_golgi_resource_never_counts_toward_the_er_load():
    state = table()
    cortisol = card_id(GAME, "Cortisol")  # lipid 3, golgi lipid, atp 1
    aldosterone = card_id(GAME, "Aldosterone")  # lipid 3, golgi carb, atp 2
    state.seats[0].hand = {cortisol, aldosterone}
    state.seats[0].stock[ATP] = 5
    state.budding[ORG_GOLGI][1] = Vesicle(0, ORG_SMOOTH, 2, GOLGI_LIPID)  # 3 Lipid of cargo in all
    assert codes_at(state, "exocytosis") == []
    state.budding[ORG_GOLGI][1] = Vesicle(0, ORG_SMOOTH, 4, GOLGI_LIPID)  # surplus is fine
    assert codes_at(state, "exocytosis") == [(1, cortisol, 0)]  # Aldosterone needs Carbohydrate
    apply(state, place("exocytosis", 1, cortisol))
    p = state.seats[0]
    assert p.completed == [cortisol] and p.stock[ATP] == 4
    assert p.flows[state.row("cargo_returned")][LIPID] == 5  # 4 loaded + 1 Golgi, all returned
    assert state.budding[ORG_GOLGI][1] is None and state.free_disks(0) == p.disks


def test_golgi_move_needs_an_own_er_vesicle_and_a_resource():
    state = table()
    state.budding[ORG_ROUGH][2] = Vesicle(0, ORG_ROUGH, 3)
    state.budding[ORG_SMOOTH][0] = Vesicle(1, ORG_SMOOTH, 3)
    assert codes_at(state, "golgi") == []  # no Carbohydrate or Lipid
    state.seats[0].stock[CARB] = 1
    source = ORG_ROUGH * SOURCE_RADIX + 2
    assert codes_at(state, "golgi") == [(source, GOLGI_CARB, 0)]
    state.budding[ORG_GOLGI] = [Vesicle(1, ORG_SMOOTH, 1, GOLGI_CARB), Vesicle(0, ORG_ROUGH, 1, GOLGI_CARB),
                                Vesicle(2, ORG_SMOOTH, 1, GOLGI_LIPID)]
    assert codes_at(state, "golgi") == [(source, GOLGI_CARB, 1), (source, GOLGI_CARB, 3)]
    apply(state, place("golgi", source, GOLGI_CARB, 3))
    assert state.budding[ORG_ROUGH][2] is None
    assert state.budding[ORG_GOLGI][2] == Vesicle(0, ORG_ROUGH, 3, GOLGI_CARB)
    assert state.seats[2].flows[state.row("cargo_lost")][LIPID] == 2
    assert state.seats[0].flows[state.row("cargo_loaded")][CARB] == 1


def test_hp_never_below_zero_after_an_hp_if_event():
    state = table()
    oxidative = next(e.id for e in GAME.events if e.name == "Oxidative Stress")  # atp <= 1: -1 HP
    state.seats[0].stock[ATP] = 0  # 0 HP: nothing to lose
    state.seats[1].stock[ATP] = 1
    state.seats[1].hp_by_source[HP_SOURCES.index("enzyme")] = 2
    state.seats[2].stock[ATP] = 5
    resolve_event(state, oxidative)
    assert [p.hp for p in state.seats] == [0, 1, 0]
    event = HP_SOURCES.index("event")
    assert [p.hp_by_source[event] for p in state.seats] == [0, -1, 0]


def test_identical_spots_take_the_lowest_free_spot_and_one_flask_per_spot():
    state = table(players=2)
    ribosome = location_index(GAME, "free_ribosome")
    for seat in (0, 1):
        state.seats[seat].stock[MRNA] = 3
    apply(state, place("free_ribosome", 2))
    assert state.spots[ribosome] == [(0, FLASK_OWN), None]
    assert state.seats[0].stock[PROTEIN] == 2 and state.seats[0].stock[MRNA] == 1
    apply(state, place("free_ribosome", 3, flask=FLASK_GREY))
    assert state.spots[ribosome] == [(0, FLASK_OWN), (1, FLASK_GREY)]
    assert codes_at(state, "free_ribosome") == []
    assert state.seats[1].grey_used == 1 and state.grey_left == GAME.board.grey_flasks - 1


def test_card_area_purchase_and_additional_resource_card():
    state = table()
    glycogen = card_id(GAME, "Glycogen Granule")  # gain 2 Carbohydrate
    state.card_area = [5, glycogen, None, 7]
    state.seats[0].stock[ATP] = 1
    assert codes_at(state, "card_area") == [(0, 0, 0), (1, 0, 0)]  # slot 2 is empty; slot 3 costs 3
    apply(state, place("card_area", 1))
    p = state.seats[0]
    assert p.hand == set() and p.stock[CARB] == 2 and p.stock[ATP] == 0
    assert state.discard == [glycogen] and state.card_area == [5, None, None, 7]
    assert p.bought == [glycogen]
    assert p.flows[state.row("gain_additional_resource")][CARB] == 2
    # A card discount makes slot 3 affordable.
    state.card_discount = 2
    state.seats[1].stock[ATP] = 1
    assert codes_at(state, "card_area") == [(0, 0, 0), (3, 0, 0)]


def test_refresh_discards_slides_and_reshuffles_only_when_needed():
    calls = []

    def shuffle(purpose, index, ids):
        calls.append((purpose, index, list(ids)))
        return list(reversed(ids))

    state = table()
    state.card_area = [None, 4, None, 6]
    state.deck = [10, 11]
    refresh_card_area(state, shuffle)
    assert state.card_area == [4, 6, 10, 11] and state.discard == [] and calls == []
    state.card_area = [4, None, 6, None]
    state.deck = [12]
    state.discard = [20]
    refresh_card_area(state, shuffle)
    # 4 discarded; 6 slides to slot 0; 12 drawn; then the deck is empty: reshuffle 20 and 4.
    assert calls == [(CHANCE_RESHUFFLE, 1, [4, 20])]
    assert state.card_area == [6, 12, 20, 4] and state.deck == [] and state.discard == []
    state.card_area = [1, 2, None, None]
    refresh_card_area(state, shuffle)
    assert calls[-1] == (CHANCE_RESHUFFLE, 2, [1])
    assert state.card_area == [2, 1, None, None] and state.reshuffles == 2


def test_location_bonus_goes_to_the_first_placement_only():
    state = table()
    nucleus = location_index(GAME, "nucleus")
    resolve_event(state, next(e.id for e in GAME.events if e.name == "Transcription Burst"))
    start_round(state, 2)
    apply(state, place("nucleus", 1, flask=FLASK_GREY))  # grey flasks claim it too
    apply(state, place("nucleus", 0))
    assert state.seats[0].stock[MRNA] == 3 and state.seats[1].stock[MRNA] == 3
    assert state.seats[0].flows[state.row("gain_location_bonus")][MRNA] == 1
    assert state.seats[0].flows[state.row("gain_spot", nucleus)][MRNA] == 2


def test_laureates_marker_and_goal_markers():
    state = table()
    laureates = location_index(GAME, "laureates")
    state.seats[0].goal_markers_placed = 0
    state.goal_markers[1] = [2]
    state.goal_markers[2] = [1, 2]  # full
    state.to_move = 1
    assert codes_at(state, "laureates") == [(0, 0, 0), (1, 0, 0), (2, 0, 0)]
    apply(state, place("laureates", 1))
    assert state.marker == 1 and state.round_start_marker == 0
    assert state.seats[1].hp_by_source[HP_SOURCES.index("goal_marker")] == GAME.board.first_marker_hp
    assert state.to_move == 2  # the round's order does not change
    assert codes_at(state, "laureates") == []  # one flask per spot
    # rotate: no marker; a second marker on a card scores nothing at once.
    state = table(variant(turn_order="rotate"))
    state.goal_markers[1] = [2]
    apply(state, place("laureates", 2, game=state.game))
    assert state.marker == 0 and state.seats[0].hp == 0 and state.goal_markers[1] == [2, 0]
    assert state.seats[0].laureates_as_holder == 1
    assert state.spots[laureates] == [(0, FLASK_OWN)]


def test_pass_only_without_unplaced_flasks_and_exhaust_always():
    state = table(players=2)
    codes = legal_actions(state)
    assert encode_action(ACT_PASS) not in codes
    assert [c for c in codes if decode_action(c)[0] == ACT_EXHAUST] == [
        encode_action(ACT_EXHAUST, p1=r) for r in (MRNA, LIPID, ATP)
    ]
    state.seats[0].flasks_exhausted_round = GAME.board.flasks(2)
    state.seats[0].grey_placed = 1
    assert legal_actions(state) == [encode_action(ACT_PASS)]
    apply(state, encode_action(ACT_PASS))
    assert state.seats[0].out and state.to_move == 1
    state.seats[1].out = True
    from simcell.referee.resolve import next_to_move

    assert next_to_move(state, 1) is None


def test_end_scoring_goal_then_receptor_bonuses():
    state = table(players=2)
    ids = {c.name: c.id for c in GAME.cards}
    state.goals_in_play = [0, 1, 3, 4]  # Enzymes, Detoxification (most), Receptors, Diversity
    state.goal_markers = [[0], [0, 1], [1], [1]]
    state.seats[0].completed = [ids["Amylase"], ids["Lactase"], ids["Sulfation"]]
    state.seats[1].completed = [
        ids["Insulin Receptor"], ids["Insulin"], ids["Oxytocin"], ids["Cortisol"], ids["Sulfation"],
    ]
    score_game(state)
    bonus = HP_SOURCES.index("goal_bonus")
    receptor = HP_SOURCES.index("receptor_bonus")
    # seat 0: Enzymes 2 x 2; Detoxification tie at 1: 8.  seat 1: Detox 8, Receptors 3 x 1,
    # Diversity 2 x 4 types (protein_receptor, protein_hormone, steroid_hormone, detox).
    assert state.seats[0].hp_by_source[bonus] == 4 + 8
    assert state.seats[1].hp_by_source[bonus] == 8 + 3 + 8
    assert state.seats[1].hp_by_source[receptor] == 2  # 1 per protein hormone completed
    assert state.seats[0].hp_by_source[receptor] == 0


def test_last_event_applies_in_the_final_phase_one():
    boost = next(e.id for e in GAME.events if e.name == "Respiration Boost")

    class LastIsBoost(RandomTable):
        def shuffle(self, purpose, index, ids):
            order = super().shuffle(purpose, index, ids)
            if purpose == CHANCE_EVENT_ORDER and boost in order:
                order.remove(boost)
                order.append(boost)
                self.trace[-len(order):] = order
            return order

    for seed in range(20):
        tab = LastIsBoost(random.Random(seed))
        meta = GameMeta(game=seed)
        state = play_game(GAME, 4, meta, tab)
        if state.events_revealed[-1] != boost:
            continue  # set aside in this game
        trace = tab.trace + [TRACE_END]
        result = replay(GAME, 4, trace, meta)
        final = [e for e in result.log if e.kind == "round"][-1]
        mito = location_index(GAME, "mitochondria")
        assert final.detail["location_bonuses"] == [(mito, ATP, 1)]
        claims = [t for t in turns(result) if t.round == final.round and any(
            n[0] == "location_bonus" for n in t.detail["notes"])]
        assert len(claims) <= 1
        return
    pytest.fail("Respiration Boost was set aside in every game")
