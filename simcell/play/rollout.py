"""`rollout` (and `oracle`): the search policy. The planner's values rank the legal actions; the
decisions that matter, where more than one action is valued within `window` HP of the best, are
searched: for each of `playouts` deals of the hidden cards and events consistent with the
seat's observation (determinize.py), each of the best `candidates` actions is applied and the
game played on by planner players (temperature `playout_temperature`) in the turn loop of
play/turns.py for `horizon` policy decisions (or to its end), then closed by the position
evaluator (policies/position.py); the candidate with the best mean margin over the strongest
rival is taken. All candidates of one playout share its deal and seed (common random numbers).
A decision with one clear best takes it without search, which is what makes a field of it fast.
The `oracle` (`sees_all`) searches the true game instead of deals of it: it sees what no player
sees, an upper reference for how much the hidden information hides."""

from __future__ import annotations

import numpy as np

from simcell.kernel.chance import GOLDEN, splitmix64
from simcell.kernel.jit import kernel_jit, kernel_jit_literal
from simcell.kernel.scoring import final_scores
from simcell.kernel.setup import set_policy_prefix
from simcell.kernel.state import G_BLOCK, G_SEED, G_TRACE_ON, MAX_CANDIDATES
from simcell.play.turns import ON_OVER, decision_step, play_on, total_decisions
from simcell.policies.determinize import SEED_SALT, copy_game, determinize
from simcell.play.dispatch import decision_key
from simcell.policies.evaluate import V_TEMPERATURE
from simcell.policies.position import position_value
from simcell.policies.registry import KERNEL_PLANNER, ROLLOUT_INDEX

R_PLAYOUTS = ROLLOUT_INDEX["playouts"]
R_CANDIDATES = ROLLOUT_INDEX["candidates"]
R_TEMPERATURE = ROLLOUT_INDEX["playout_temperature"]
R_WINDOW = ROLLOUT_INDEX["window"]
R_HORIZON = ROLLOUT_INDEX["horizon"]
R_SEES_ALL = ROLLOUT_INDEX["sees_all"]


@kernel_jit
def rank_candidates(st, gt, seat, n_legal, params, k):
    """st.workspace.candidates[:k] = indices of the k best legal actions by the planner's values,
    which the turn loop left in st.workspace.values when it stopped for this decision
    (turns.play_on; ties to the lower index), cut to those within params' `window` of the best;
    returns how many."""
    values = st.workspace.values
    window = params[R_WINDOW]
    for c in range(k):
        best = -1
        for i in range(n_legal):
            taken = False
            for j in range(c):
                if st.workspace.candidates[j] == i:
                    taken = True
            if not taken and (best < 0 or values[i] > values[best]):
                best = i
        if c > 0 and window > 0.0 and values[best] < values[st.workspace.candidates[0]] - window:
            return c
        st.workspace.candidates[c] = best
    return k


@kernel_jit
def playout_deal(st, gt, seat, key, sees_all, root):
    """root = the game the playout plays on: a deal of what `seat` cannot see (determinize), or
    for the oracle the true game, with a seed of the playout's own for its players' draws."""
    if sees_all:
        copy_game(st, root)
        root.g[G_TRACE_ON] = 0
        root.g[G_BLOCK] = 0
        root.g[G_SEED] = np.int64(splitmix64(key ^ SEED_SALT) >> np.uint64(1))
        set_policy_prefix(root, gt)
    else:
        determinize(st, gt, seat, key, root)


@kernel_jit
def playout_score(work, gt, seat, params, over):
    """The searching seat's margin over its strongest rival, in HP: final HP when the playout
    ended the game, else each seat's position value (policies/position.py, valued with the
    searcher's parameters)."""
    if over:
        final_scores(work, gt, work.final_hp, work.win_share, work.rank)
    best_rival = -1e300
    mine = 0.0
    for s in range(gt.players):
        x = np.float64(work.final_hp[s]) if over else position_value(work, gt, s, params)
        if s == seat:
            mine = x
        elif x > best_rival:
            best_rival = x
    return mine - best_rival


@kernel_jit_literal
def choose_rollout(st, gt, seat, n_legal, params, user_fn, root, work):
    """Index among st.workspace.legal[:n_legal] of the rollout policy's action."""
    key = decision_key(st, gt, seat)
    k = min(max(int(params[R_CANDIDATES]), 1), n_legal, MAX_CANDIDATES)
    playouts = max(int(params[R_PLAYOUTS]), 0)
    k = rank_candidates(st, gt, seat, n_legal, params, k)
    if k == 1 or playouts == 0:
        return st.workspace.candidates[0]
    horizon = int(params[R_HORIZON])
    sees_all = params[R_SEES_ALL] > 0.0
    for c in range(k):
        st.workspace.candidate_score[c] = 0.0
    for p in range(playouts):
        playout_deal(st, gt, seat, splitmix64(key ^ (GOLDEN * np.uint64(p + 1))), sees_all, root)
        for s in range(gt.players):  # planner players in every seat of the playout
            root.seating.policy[s] = KERNEL_PLANNER
            for j in range(params.shape[0]):
                root.seating.params[s, j] = params[j]
            root.seating.params[s, V_TEMPERATURE] = params[R_TEMPERATURE]
        for c in range(k):
            copy_game(root, work)
            decision_step(work, gt, st.workspace.legal[st.workspace.candidates[c]])
            work.decisions[seat] += 1
            stop = total_decisions(work) + horizon if horizon > 0 else np.int64(-1)
            status = play_on(work, gt, user_fn, stop, np.bool_(False))
            st.workspace.candidate_score[c] += playout_score(work, gt, seat, params,
                                                             status == ON_OVER)
    best = 0
    for c in range(1, k):
        if st.workspace.candidate_score[c] > st.workspace.candidate_score[best]:
            best = c
    return st.workspace.candidates[best]
