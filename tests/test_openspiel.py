"""The OpenSpiel game (simcell/env/openspiel.py, docs/env.md): OpenSpiel's own random simulation
test on the registered game at 2 and 5 players, clones that play on alone, and parity: kernel
games, their chance orders drawn at the chance nodes and their decisions played, give the
kernel's records field for field."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from simcell.config.load import load_default_game  # noqa: E402
from simcell.referee.records import build_result  # noqa: E402
from simcell.env.chance import keyed_shuffle, stream_key  # noqa: E402
from simcell.env.openspiel import SHORT_NAME, CytosisGame  # noqa: E402

from .parity import compare_records, with_rules  # noqa: E402
from .test_env import META_FIELDS, SEED, decisions_of  # noqa: E402


@pytest.mark.parametrize(("players", "sims"), [(2, 2), (5, 1)])
def test_openspiel_random_simulation_test(players: int, sims: int) -> None:
    game = pyspiel.load_game(SHORT_NAME, {"players": players})
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)


def test_a_clone_plays_on_alone() -> None:
    game = pyspiel.load_game(SHORT_NAME, {"players": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while state.is_chance_node() or state.move_number() < 40:
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(int(rng.choice(outcomes)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    clone = state.clone()
    before = (str(state), state.legal_actions(), state.observation_tensor(0))
    while not clone.is_terminal():
        if clone.is_chance_node():
            clone.apply_action(int(rng.choice([o for o, _ in clone.chance_outcomes()])))
        else:
            clone.apply_action(int(rng.choice(clone.legal_actions())))
    assert (str(state), state.legal_actions(), state.observation_tensor(0)) == before
    assert sum(clone.returns()) == pytest.approx(1.0)


@pytest.mark.parametrize(("players", "rules"), [
    (2, {}),
    (4, {"epigenetic": True, "supply_limited": True, "placement_order": "snake_round"}),
])
def test_kernel_games_through_the_openspiel_game_give_the_same_records(
    players: int, rules: dict
) -> None:
    from simcell.runner.fields import homogeneous
    from simcell.runner.games import play_traced

    definition = with_rules(load_default_game(), **rules)
    game = CytosisGame({"players": players}, game=definition)
    for g in range(3):
        traced = play_traced(definition, players, SEED, g, homogeneous("random", players))
        decisions = iter(decisions_of(traced.trace))
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                (purpose, index), ids = state.drawing
                key = stream_key(SEED, players, g, purpose, index)
                state.apply_action(keyed_shuffle(key, ids)[len(state.drawn)])
            else:
                seat, code = next(decisions)
                assert state.current_player() == seat
                state.apply_action(game.actions.index(code))
        assert next(decisions, None) is None
        diffs = [d for d in compare_records(traced, build_result(state.table))
                 if d.split(":")[0].split()[-1] not in META_FIELDS]
        assert diffs == [], f"{players}p game {g}: {diffs[:5]}"
        shares = [float(r["win_share"]) for r in traced.players]
        assert state.returns() == pytest.approx(shares)


def mid_game(players: int, moves: int, seed: int):
    game = pyspiel.load_game(SHORT_NAME, {"players": players})
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while state.is_chance_node() or state.move_number() < moves:
        if state.is_chance_node():
            state.apply_action(int(rng.choice([o for o, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return game, state


def test_a_resampled_state_looks_the_same_to_the_player() -> None:
    """Information-set search draws states the player cannot tell apart: its observation, its
    legal actions and its information state are the same; what is hidden from it changes."""
    from simcell.env.observation import observe

    game, state = mid_game(3, 60, 1)
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    moved = set()
    for _ in range(8):
        other = state.resample_from_infostate(player, sampler)
        for seat in range(3):
            same = np.array_equal(observe(other.table, seat, game.layout),
                                  observe(state.table, seat, game.layout))
            assert same or seat != player
        assert other.legal_actions() == state.legal_actions()
        assert other.information_state_string(player) == state.information_state_string(player)
        moved |= {p.seat for p, q in zip(other.table.seats, state.table.seats) if p.hand != q.hand}
        moved |= {"deck"} if other.table.deck != state.table.deck else set()
    assert player not in moved and {"deck"} < moved and len(moved) >= 2


def test_openspiels_information_set_mcts_plays_the_game() -> None:
    """OpenSpiel's own ISMCTSBot, unchanged, chooses a legal action (a small budget: each
    simulation plays a random game to its end in plain Python)."""
    from open_spiel.python.algorithms import ismcts, mcts

    game, state = mid_game(3, 60, 2)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 4, random_state=np.random.RandomState(0))
    assert bot.step(state) in state.legal_actions()
