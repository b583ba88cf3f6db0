"""The PettingZoo environment (simcell/env/, docs/env.md): PettingZoo's own API and seed tests at
2 and 5 players, the registry, the action table, what a seat sees (nothing hidden moves its
observation, and a leak would be caught), and parity: the kernel's games, their decisions fed to
the environment with the same seed, give the same records field for field."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from simcell.config.load import load_default_game  # noqa: E402
from simcell.vocabulary import TRACE_DECISION, TRACE_END, TRACE_SHUFFLE  # noqa: E402
from simcell.env import ENV_ID, env, raw_env  # noqa: E402
from simcell.env.chance import keyed_shuffle, stream_key  # noqa: E402
from simcell.env.observation import observe  # noqa: E402

from .conftest import CONFIGS  # noqa: E402
from .parity import compare_records, with_rules  # noqa: E402

SEED = 20261207


def random_play(e, rng: np.random.Generator, stop_after: int | None = None) -> int:
    """Play uniformly random legal actions until the game ends (or `stop_after` decisions)."""
    n = 0
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        if stop_after is not None and n == stop_after:
            return n
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        n += 1
    return n


# -- PettingZoo's own tests --------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 5])
def test_pettingzoo_api_test(players: int) -> None:
    api_test(env(players=players), num_cycles=1000)


@pytest.mark.parametrize("players", [2, 5])
def test_pettingzoo_seed_test(players: int) -> None:
    seed_test(lambda: env(players=players), num_cycles=1000)


def test_registered_under_a_stable_id() -> None:
    # the env extra pins a PettingZoo with its registry (1.27), so the id must resolve
    e = pettingzoo.make("aec", ENV_ID, players=3)
    e.reset(seed=1)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]


def test_a_config_path_makes_its_game() -> None:
    e = env(players=3, config=CONFIGS / "tuned-3p.toml")
    assert e.unwrapped.game.content_hash != load_default_game().content_hash
    e.reset(seed=2)
    assert random_play(e, np.random.default_rng(0)) > 50


# -- seeds ---------------------------------------------------------------------------------
def test_a_seed_replays_the_game_and_the_next_reset_deals_the_next_game() -> None:
    def game(e, rng_seed: int, **reset) -> list:
        e.reset(**reset)
        rng = np.random.default_rng(rng_seed)
        seen = []
        for _ in e.agent_iter():
            obs, reward, term, _, info = e.last()
            seen.append((e.agent_selection, obs["observation"].tobytes(), reward, term))
            if term:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return seen

    a, b = env(players=4), env(players=4)
    assert game(a, 7, seed=99) == game(b, 7, seed=99)
    second = game(a, 7)
    assert second != game(b, 7, seed=99)
    assert second == game(b, 7, seed=99, options={"deal": 1})


# -- the action table ------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_legal_action_has_an_index(players: int) -> None:
    """Random games under every rule switch at once: each legal code the referee lists is in the
    table (observe raises otherwise), and only legal actions are accepted."""
    game = with_rules(load_default_game(), epigenetic=True, supply_limited=True, grey_per_player=2,
                      turn_order="rotate", placement_order="snake_pass",
                      laureates_once_each=True, two_player_remove_detox=True)
    e = env(players=players, config=game)
    rng = np.random.default_rng(players)
    for g in range(6):
        e.reset(seed=SEED + g)
        random_play(e, rng)
    e.reset(seed=SEED)
    mask = e.observe(e.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match="may not"):
        e.step(int(np.flatnonzero(mask == 0)[0]))


# -- what a seat sees -------------------------------------------------------------------------
def hidden_variants(state, observer: int):
    """Copies of `state` that differ from it only in what `observer` may not see: the deck order,
    another player's hand, another player's returned card, the event deck's order and which
    events were set aside."""
    out = []
    if len(state.deck) >= 2:
        v = copy.deepcopy(state)
        v.deck = v.deck[::-1]
        out.append(("deck order", v))
    for rival in range(state.players):
        p = state.seats[rival]
        if rival == observer or not p.hand or not state.deck:
            continue
        v = copy.deepcopy(state)
        held = min(v.seats[rival].hand)
        drawn = v.deck[0]
        v.seats[rival].hand = (v.seats[rival].hand - {held}) | {drawn}
        v.deck[0] = held
        out.append((f"seat {rival}'s hand", v))
        if p.returned is not None and state.deck:
            v = copy.deepcopy(state)
            v.seats[rival].returned = v.deck[-1]
            out.append((f"seat {rival}'s returned card", v))
    if len(state.event_deck) >= 2:
        v = copy.deepcopy(state)
        v.event_deck = v.event_deck[::-1]
        out.append(("event order", v))
    if state.events_set_aside and state.event_deck:
        v = copy.deepcopy(state)
        v.events_set_aside[0], v.event_deck[0] = v.event_deck[0], v.events_set_aside[0]
        out.append(("events set aside", v))
    return out


def leaks(see, state, observer: int) -> list[str]:
    """The hidden parts of the game that move `see(state, observer)`."""
    base = see(state, observer)
    return [name for name, v in hidden_variants(state, observer)
            if not np.array_equal(see(v, observer), base)]


def game_states(players: int, rules: dict, samples: int = 6):
    """States met along random games in the environment: setup, early and late decisions."""
    e = raw_env(players=players, config=with_rules(load_default_game(), **rules))
    rng = np.random.default_rng(players)
    out = []
    for g in range(2):
        for stop in np.linspace(1, 150 if players > 2 else 90, samples).astype(int):
            e.reset(seed=SEED + g)
            random_play(e, rng, stop_after=int(stop))
            if e.table is not None and e.legal_codes():
                out.append(e.table)
    return out


@pytest.mark.parametrize(("players", "rules"), [
    (2, {"two_player_remove_detox": True}),
    (5, {"epigenetic": True, "supply_limited": True}),
])
def test_hidden_information_never_moves_an_observation(players: int, rules: dict) -> None:
    e = raw_env(players=players)
    e.reset(seed=SEED)
    layout = e.layout

    def see(state, seat):
        e.table = state
        return e.observe(f"player_{seat}")["observation"]

    def leaky_hands(state, seat):  # every hand, not the observer's alone
        hands = [c for p in state.seats for c in sorted(p.hand)]
        return np.concatenate([observe(state, seat, layout), hands])

    def leaky_deck(state, seat):  # the next card of the deck
        return np.concatenate([observe(state, seat, layout), state.deck[:1]])

    def leaky_events(state, seat):  # the next event
        return np.concatenate([observe(state, seat, layout), state.event_deck[:1]])

    checked = 0
    for state in game_states(players, rules):
        for observer in range(players):
            assert leaks(see, state, observer) == [], f"round {state.round}, seat {observer}"
            checked += 1
        rival = (state.to_move + 1) % players
        # the check can fail: each planted leak is found, and the observer's own hand is seen
        assert any("hand" in name for name in leaks(leaky_hands, state, rival))
        assert "deck order" in leaks(leaky_deck, state, rival)
        if len(state.event_deck) >= 2:
            assert "event order" in leaks(leaky_events, state, rival)
        own = [name for name, v in hidden_variants(state, rival)
               if "hand" in name and not np.array_equal(see(v, (rival + 1) % players),
                                                        see(state, (rival + 1) % players))]
        assert own, "a seat's hand must move its own observation"
    assert checked >= 10 * players


# -- the same games as the kernel ------------------------------------------------------------
def test_chance_streams_match_the_kernel() -> None:
    from simcell.kernel.chance import keyed_shuffle as kernel_shuffle
    from simcell.kernel.chance import stream_key as kernel_key

    rng = random.Random(1)
    for _ in range(50):
        coords = (rng.getrandbits(63), rng.randint(2, 5), rng.getrandbits(20), rng.randint(0, 8),
                  rng.getrandbits(40))
        key = stream_key(*coords)
        assert int(kernel_key(np.uint64(coords[0]), *(np.int64(c) for c in coords[1:]))) == key
        n = rng.randint(1, 64)
        ids = np.array(sorted(rng.sample(range(64), n)), np.int64)
        hashes = np.zeros(64, np.uint64)
        want = keyed_shuffle(key, ids.tolist())
        kernel_shuffle(np.uint64(key), ids, n, hashes)
        assert ids.tolist() == want


def decisions_of(trace) -> list[tuple[int, int]]:
    """(seat, chosen code) of every decision of a kernel trace that was not automatic."""
    out, i = [], 0
    while trace[i] != TRACE_END:
        if trace[i] == TRACE_SHUFFLE:
            i += 4 + trace[i + 3]
        else:
            assert trace[i] == TRACE_DECISION
            seat, automatic, n = trace[i + 1], trace[i + 2], trace[i + 3]
            if not automatic:
                out.append((int(seat), int(trace[i + 4 + n])))
            i += 5 + n
    return out


META_FIELDS = {"game", "deal", "rotation", "player", "policy"}  # who sat where in the run


@pytest.mark.parametrize(("players", "rules"), [
    (2, {}),
    (5, {}),
    (3, {"placement_order": "snake_round", "laureates_once_each": True}),
    (4, {"epigenetic": True, "supply_limited": True}),
    (2, {"epigenetic": True, "supply_limited": True, "two_player_remove_detox": True,
         "turn_order": "rotate", "grey_per_player": 2, "laureates_holder_may_take": False}),
])
def test_kernel_games_replayed_through_the_environment_give_the_same_records(
    players: int, rules: dict
) -> None:
    from simcell.runner.fields import homogeneous
    from simcell.runner.games import play_traced

    game = with_rules(load_default_game(), **rules)
    e = env(players=players, config=game)
    for g in range(4):
        traced = play_traced(game, players, SEED, g, homogeneous("random", players))
        e.reset(seed=SEED, options={"deal": g})
        for seat, code in decisions_of(traced.trace):
            assert e.agent_selection == f"player_{seat}"
            e.step(e.unwrapped.actions.index(code))
        assert all(e.terminations.values())
        result = e.unwrapped.records()
        diffs = [d for d in compare_records(traced, result)
                 if d.split(":")[0].split()[-1] not in META_FIELDS]
        assert diffs == [], f"{players}p game {g}: {diffs[:5]}"
        for seat in range(players):
            record = traced.players[seat]
            assert e.rewards[f"player_{seat}"] == pytest.approx(float(record["win_share"]))
            assert e.infos[f"player_{seat}"]["hp"] == int(record["final_hp"])


# -- docs/env.md ----------------------------------------------------------------------------
def test_the_agent_loop_in_the_docs_runs(capsys) -> None:
    from .conftest import ROOT

    page = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")
    section = page.split("## An agent loop", 1)[1]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(block, "docs/env.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3 and all("win share" in line for line in printed)


def test_the_docs_sizes_are_the_environments() -> None:
    """docs/env.md states the action and observation sizes of the shipped game."""
    from .conftest import ROOT

    page = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")
    actions = [len(raw_env(players=p).actions) for p in (2, 3, 4, 5)]
    sizes = [raw_env(players=p).layout.size for p in (2, 3, 4, 5)]
    assert f"{actions[0]}, {actions[1]}, {actions[2]} and {actions[3]} actions" in page
    assert f"{sizes[0]}, {sizes[1]}, {sizes[2]} and {sizes[3]} entries" in page
