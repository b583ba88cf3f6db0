"""`rollout`: a search policy. The greedy evaluator ranks the legal actions and keeps the best
`candidates`; for each of `playouts` determinizations of the hidden information
(determinize.py: a deal consistent with the seat's observation), every candidate is applied and
the game played to its end by greedy players (temperature `playout_temperature`) in the turn
loop of play/turns.py; the candidate with the best mean outcome (win share, plus a little of
the HP margin over the table to separate losses) is taken. All candidates of one playout share
its determinization and seed (common random numbers). Slow by design: it exists to check that
findings hold under stronger play."""

from __future__ import annotations

import numpy as np

from simcell.kernel.chance import GOLDEN, splitmix64
from simcell.kernel.jit import kernel_jit, kernel_jit_literal
from simcell.kernel.scoring import final_scores
from simcell.kernel.state import MAX_CANDIDATES
from simcell.play.turns import decision_step, play_on
from simcell.policies.determinize import copy_game, determinize
from simcell.play.dispatch import decision_key
from simcell.policies.evaluate import V_TEMPERATURE
from simcell.policies.registry import KERNEL_GREEDY, ROLLOUT_INDEX

R_PLAYOUTS = ROLLOUT_INDEX["playouts"]
R_CANDIDATES = ROLLOUT_INDEX["candidates"]
R_TEMPERATURE = ROLLOUT_INDEX["playout_temperature"]
MARGIN_WEIGHT = 0.02  # win share first; HP above the table mean only separates equal shares


@kernel_jit
def rank_candidates(st, gt, seat, n_legal, params, k):
    """st.workspace.candidates[:k] = indices of the k best legal actions by the greedy evaluator's values,
    which the turn loop left in st.workspace.values when it stopped for this decision
    (turns.play_on; ties to the lower index); returns k."""
    values = st.workspace.values
    for c in range(k):
        best = -1
        for i in range(n_legal):
            taken = False
            for j in range(c):
                if st.workspace.candidates[j] == i:
                    taken = True
            if not taken and (best < 0 or values[i] > values[best]):
                best = i
        st.workspace.candidates[c] = best
    return k


@kernel_jit_literal
def choose_rollout(st, gt, seat, n_legal, params, user_fn, root, work):
    """Index among st.workspace.legal[:n_legal] of the rollout policy's action."""
    key = decision_key(st, gt, seat)
    k = min(max(int(params[R_CANDIDATES]), 1), n_legal, MAX_CANDIDATES)
    rank_candidates(st, gt, seat, n_legal, params, k)
    playouts = max(int(params[R_PLAYOUTS]), 0)
    if k == 1 or playouts == 0:
        return st.workspace.candidates[0]
    for c in range(k):
        st.workspace.candidate_score[c] = 0.0
    for p in range(playouts):
        determinize(st, gt, seat, splitmix64(key ^ (GOLDEN * np.uint64(p + 1))), root)
        for s in range(gt.players):  # greedy players in every seat of the playout
            root.seating.policy[s] = KERNEL_GREEDY
            for j in range(params.shape[0]):
                root.seating.params[s, j] = params[j]
            root.seating.params[s, V_TEMPERATURE] = params[R_TEMPERATURE]
        for c in range(k):
            copy_game(root, work)
            decision_step(work, gt, st.workspace.legal[st.workspace.candidates[c]])
            work.decisions[seat] += 1
            play_on(work, gt, user_fn, np.int64(-1), np.bool_(False))
            final_scores(work, gt, work.final_hp, work.win_share, work.rank)
            others = 0.0
            for s in range(gt.players):
                others += work.final_hp[s]
            margin = work.final_hp[seat] - others / gt.players
            st.workspace.candidate_score[c] += work.win_share[seat] + MARGIN_WEIGHT * margin
    best = 0
    for c in range(1, k):
        if st.workspace.candidate_score[c] > st.workspace.candidate_score[best]:
            best = c
    return st.workspace.candidates[best]
