"""The game loops' compiled entry points (play/game.py, one per registry.LOOP_*): a field of
`random` in every seat plays in the random loop (the turn loop without the policy dispatch), but
the policies loop and the search loop (the turn loop as a real call, stopping for search seats)
must play it identically, decision for decision."""

from __future__ import annotations

import numpy as np
import pytest

from simcell.config.load import load_default_game
from simcell.play.game import PLAY_GAME
from simcell.kernel.state import G_PHASE, PH_OVER
from simcell.policies.registry import LOOP_POLICIES, LOOP_RANDOM, LOOP_SEARCH, game_loop
from simcell.policies.user import no_user_policy
from simcell.runner.fields import homogeneous
from simcell.runner.games import scratch_states
from tests.support.stepping import copy_state, game_in_progress, state_arrays


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("decisions", [0, 7, 60])
def test_random_field_plays_alike_in_every_game_loop(players: int, decisions: int) -> None:
    game = load_default_game()
    for game_index in range(6):
        found = game_in_progress(game, players, 11, game_index, homogeneous("random", players),
                                 decisions)
        assert found is not None
        st, gt = found
        played = {}
        for loop in (LOOP_RANDOM, LOOP_POLICIES, LOOP_SEARCH):
            copy = copy_state(st)
            PLAY_GAME[loop](copy, gt, 0, 0, no_user_policy(), True, 0, True, -1, *scratch_states(gt))
            assert copy.g[G_PHASE] == PH_OVER
            played[loop] = copy
        for loop in (LOOP_POLICIES, LOOP_SEARCH):
            for (name, a), (_, b) in zip(state_arrays(played[LOOP_RANDOM]),
                                         state_arrays(played[loop])):
                assert np.array_equal(a, b), f"{name} differs (game {game_index}, loop {loop})"
        # and the games really were played on from the captured state (traced: the trace grew)
        assert not np.array_equal(played[LOOP_RANDOM].trace, st.trace)


def test_a_field_plays_in_the_loop_its_policies_need() -> None:
    assert game_loop(homogeneous("random", 4).player_policy) == LOOP_RANDOM
    assert game_loop(homogeneous("planner", 4).player_policy) == LOOP_POLICIES
    assert game_loop(homogeneous("greedy", 3).player_policy) == LOOP_POLICIES
    assert game_loop(homogeneous("rollout", 2).player_policy) == LOOP_SEARCH
