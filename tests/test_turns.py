"""The turn loop's two compiled copies: `play_on` for any field and `play_on_random`, the same
loop with the policy dispatch left out, which play_game uses when every seat plays `random`.
They must play such a field identically, decision for decision."""

from __future__ import annotations

import numpy as np
import pytest

from simcell.config.load import load_default_game
from simcell.kernel.state import G_PHASE, PH_OVER
from simcell.kernel.turns import ON_OVER, play_on, play_on_random
from simcell.policies.user import no_user_policy
from simcell.runner.fields import homogeneous
from simcell.runner.games import copy_state, game_in_progress


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("decisions", [0, 7, 60])
def test_random_field_plays_alike_in_both_turn_loops(players: int, decisions: int) -> None:
    game = load_default_game()
    for game_index in range(6):
        found = game_in_progress(game, players, 11, game_index, homogeneous("random", players),
                                 decisions)
        assert found is not None
        st, gt = found
        general, random_only = copy_state(st), copy_state(st)
        user_fn = no_user_policy()
        assert play_on(general, gt, user_fn, np.int64(-1), np.bool_(True)) == ON_OVER
        assert play_on_random(random_only, gt, user_fn, np.int64(-1)) == ON_OVER
        assert general.g[G_PHASE] == PH_OVER
        for name, a, b in zip(type(st)._fields, general, random_only):
            assert np.array_equal(a, b), f"{name} differs (game {game_index})"
        # and the games really were played on from the captured state (traced: the trace grew)
        assert not np.array_equal(general.trace, st.trace)
