"""The game loop: play games from setup to scoring, asking policies for every decision with
two or more legal actions, and write their records. One loop for every variant, compiled into
one entry point per kind of field (registry.LOOP_*: every seat `random`, no search policy, a
search policy), so a run compiles only what its fields play. Each entry point stores the State,
GameTables and record columns once in its frame and passes their Refs (kernel/ref.py)."""

from __future__ import annotations

import numpy as np

from simcell.vocabulary import ORG_GOLGI, TRACE_END
from simcell.kernel.jit import kernel_entry, kernel_jit, kernel_jit_literal
from simcell.kernel.ref import as_ref
from simcell.kernel.scoring import final_scores
from simcell.kernel.setup import reset_state, setup_game
from simcell.kernel.state import (
    G_DETOX_REMOVED,
    G_EVENT_N,
    G_EVENTS_REMOVED,
    G_POLICY_ERROR,
    G_RESHUFFLES,
    G_TO_MOVE,
    G_VISIBLE,
)
from simcell.kernel.stock import trace_decision, trace_word
from simcell.play.turns import (
    ON_OVER,
    ON_SEARCH,
    decision_step,
    legal_step,
    play_on,
    total_decisions,
    turn_loop,
)
from simcell.policies.registry import LOOP_POLICIES, LOOP_RANDOM, LOOP_SEARCH
from simcell.play.rollout import choose_rollout


@kernel_jit_literal
def search_turns(st, gt, user_fn, stop_total, root, work):
    """The turns of a game with a search policy in some seat: the turn loop as a real call
    (play_on, which the search's playouts share) stops before each search-policy decision, and
    the search takes it. Returns play_on's last status."""
    while True:
        status = play_on(st, gt, user_fn, stop_total, np.bool_(True))
        if status != ON_SEARCH:
            return status
        # a search policy's decision: the turn loop stopped with the legal actions listed
        seat = st.g[G_TO_MOVE]
        n = legal_step(st, gt)
        i = choose_rollout(st, gt, seat, n, st.seating.params[seat], user_fn, root, work)
        code = st.workspace.legal[i]
        st.decisions[seat] += 1
        trace_decision(st, seat, False, st.workspace.legal, n, code)
        decision_step(st, gt, code)


@kernel_jit_literal
def play_one_game(st, gt, seed, deal, user_fn, trace_on, block, resume, stop_after, root, work,
                  loop):
    """Play one game to the end with the seating in st.seating.policy / st.seating.params (its block
    figures into aggregate row `block`) in game loop `loop` (registry.LOOP_*, a constant of the
    caller: the other loops are pruned before typing); returns the number of policy decisions
    taken. `user_fn` is the user policy (a cfunc; policies/user.py) for seats of policy
    KERNEL_USER; `root` and `work` are scratch States for the rollout policy's playouts. A user
    policy that returns an index outside the legal list ends the game with G_POLICY_ERROR set.

    `resume` continues the game in `st` instead of dealing a new one (seed, deal, trace_on and
    block are then the State's own); `stop_after` >= 0 returns before the policy decision that
    would be number stop_after + 1 of this call, leaving the game in progress (tests use both
    to compare one decision of two states). Pass False, -1 to play a game through."""
    if not resume:
        reset_state(st, gt, seed, deal, trace_on, block)
        setup_game(st, gt)
    start = total_decisions(st)
    stop_total = start + stop_after if stop_after >= 0 else -1
    if loop == LOOP_RANDOM:
        status = turn_loop(st, gt, user_fn, stop_total, False, True)
    elif loop == LOOP_POLICIES:
        status = turn_loop(st, gt, user_fn, stop_total, False, False)
    else:
        status = search_turns(st, gt, user_fn, stop_total, root, work)
    if status == ON_OVER:
        trace_word(st, TRACE_END)
    return total_decisions(st) - start


# One entry point per game loop (registry.LOOP_*): a run compiles only the loops its fields play.


@kernel_entry
def play_game_random(st, gt, seed, deal, user_fn, trace_on, block, resume, stop_after, root,
                     work):
    """play_one_game as a real call, for the runner's single games (traces, tests): every seat
    `random`."""
    return play_one_game(as_ref(st), as_ref(gt), seed, deal, user_fn, trace_on, block, resume,
                         stop_after, as_ref(root), as_ref(work), LOOP_RANDOM)


@kernel_entry
def play_game_policies(st, gt, seed, deal, user_fn, trace_on, block, resume, stop_after, root,
                       work):
    """play_game_random for a field without a search policy."""
    return play_one_game(as_ref(st), as_ref(gt), seed, deal, user_fn, trace_on, block, resume,
                         stop_after, as_ref(root), as_ref(work), LOOP_POLICIES)


@kernel_entry
def play_game_search(st, gt, seed, deal, user_fn, trace_on, block, resume, stop_after, root,
                     work):
    """play_game_random for a field with a search policy in some seat."""
    return play_one_game(as_ref(st), as_ref(gt), seed, deal, user_fn, trace_on, block, resume,
                         stop_after, as_ref(root), as_ref(work), LOOP_SEARCH)


PLAY_GAME = {LOOP_RANDOM: play_game_random, LOOP_POLICIES: play_game_policies,
             LOOP_SEARCH: play_game_search}


@kernel_jit
def write_records(st, gt, pr, gr, row, game, deal, rotation):
    """Copy the finished game's figures into record row `row` (players rows from row * P)."""
    p = gt.players
    hp = st.final_hp
    share = st.win_share
    rank = st.rank
    tie = final_scores(st, gt, hp, share, rank)
    for s in range(p):
        i = row * p + s
        pr.game[i] = game
        pr.deal[i] = deal
        pr.rotation[i] = rotation
        pr.seat[i] = s
        pr.player[i] = st.seating.player[s]
        pr.policy[i] = st.seating.label[s]
        pr.final_hp[i] = hp[s]
        for k in range(st.hp.shape[1]):
            pr.hp_by_source[i, k] = st.hp[s, k]
        for r in range(gt.max_rounds):
            pr.hp_by_round[i, r] = st.hp_round[s, r]
        pr.win_share[i] = share[s]
        pr.rank[i] = rank[s]
        pr.dealt_mask[i] = st.dealt[s]
        pr.kept_mask[i] = st.kept[s]
        pr.bought_mask[i] = st.bought[s]
        pr.completed_mask[i] = st.completed[s]
        for t in range(6):
            pr.completed_by_type[i, t] = st.completed_by_type[s, t]
        pr.flasks_exhausted[i] = st.exhausted[s]
        pr.grey_used[i] = st.grey_total[s]
        pr.laureates_taken[i] = st.laureates[s]
        pr.laureates_as_holder[i] = st.laureates_holder[s]
        pr.goal_markers_placed[i] = st.markers_placed[s]
        for k in range(gt.n_goals):
            pr.goal_marker_round[i, k] = 0
            pr.goal_marker_order[i, k] = 0
            pr.goal_bonus_by_goal[i, k] = 0
        for gi in range(gt.goals_revealed):
            k = st.goals[gi]  # the goal card (data position: the record's goal card axis)
            pr.goal_marker_round[i, k] = st.goal_round[gi, s]
            pr.goal_marker_order[i, k] = st.goal_order[gi, s]
            pr.goal_bonus_by_goal[i, k] = st.goal_paid[gi, s]
        pr.vesicles_lost[i] = st.ves_lost[s]
        left = 0
        for org in range(ORG_GOLGI + 1):
            for b in range(st.ves_owner.shape[1]):
                if st.ves_owner[org, b] == s:
                    left += 1
        pr.vesicles_left[i] = left
        for loc in range(gt.n_loc):
            pr.placements_by_location[i, loc] = st.placements[s, loc]
        for f in range(gt.n_flow):
            for r in range(5):
                pr.flows[i, f, r] = st.flows[s, f, r]
        for r in range(5):
            pr.stock[i, r] = st.stock[s, r]
    gr.game[row] = game
    gr.deal[row] = deal
    gr.rotation[row] = rotation
    gr.players[row] = p
    gr.tie[row] = tie == 1
    gr.rounds[row] = gt.rounds
    gr.event_order[row, :] = -1
    for j in range(st.g[G_EVENT_N]):
        gr.event_order[row, j] = gt.event_id[st.event_deck[j]]
    gr.events_removed[row] = st.g[G_EVENTS_REMOVED]
    gr.goals_in_play[row, :] = -1
    for gi in range(gt.goals_revealed):
        gr.goals_in_play[row, gi] = gt.goal_id[st.goals[gi]]
    for r in range(gt.max_rounds):
        gr.first_player[row, r] = st.first_player[r]
    for r in range(5):
        gr.peak_use[row, r] = st.peak[r]
        gr.supply_shortfall[row, r] = st.shortfall[r]
    gr.reshuffles[row] = st.g[G_RESHUFFLES]
    gr.detox_removed[row] = st.g[G_DETOX_REMOVED]
    gr.visible_mask[row] = st.g[G_VISIBLE]


@kernel_entry
def record_game(st, gt, pr, gr, row, game, deal, rotation):
    """write_records from Python (a traced game's records)."""
    write_records(as_ref(st), as_ref(gt), as_ref(pr), as_ref(gr), row, game, deal, rotation)


@kernel_entry
def seat_game(st, player_policy, player_label, player_params, seat_orders, rotation):
    """seat_players from Python (before a traced game)."""
    seat_players(as_ref(st), player_policy, player_label, player_params, seat_orders, rotation)


@kernel_jit
def block_of(game, total_games, blocks):
    """Block of game g of N (docs/method.md): floor(g * K / N), fixed by the game index."""
    return (np.int64(game) * np.int64(blocks)) // np.int64(total_games)


@kernel_jit
def seat_players(st, player_policy, player_label, player_params, seat_orders, rotation):
    """Seat the field for one rotation: seat s plays player seat_orders[rotation, s]."""
    for s in range(seat_orders.shape[1]):
        player = seat_orders[rotation, s]
        st.seating.player[s] = player
        st.seating.policy[s] = player_policy[player]
        st.seating.label[s] = player_label[player]
        for k in range(player_params.shape[1]):
            st.seating.params[s, k] = player_params[player, k]


@kernel_jit_literal
def chunk_games(st, gt, pr, gr, seed, first_game, n_games, total_games, player_policy,
                player_label, player_params, seat_orders, duplicate, user_fn, root, work, loop):
    """Play games first_game .. first_game + n_games - 1 of a run of total_games games, write
    their records in rows 0 .. n_games - 1 and add their block figures to the State's
    aggregates (rows: blocks of the run, st.tallies first axis); returns the policy decisions
    taken, or -1 - row when a user policy failed in that row's game. `loop`: the game loop
(registry.LOOP_*, a constant of the caller).

    The field: player p plays kernel policy player_policy[p] with parameters player_params[p]
    (record label player_label[p]). Game g uses rotation g % R of seat_orders (R rows, each a
    seat -> player order); its deal is g, or g // R in duplicate mode (the R rotations of a
    deal share every chance stream). Its block is floor(u * K / U) of its rotation group
    u = g // R (U = total_games // R groups; total_games a multiple of R), so a block holds
    whole rotation groups and, in duplicate mode, whole deals. `root` and `work`: scratch States for rollout playouts."""
    total = 0
    blocks = st.tallies.offered.shape[0]
    rotations = seat_orders.shape[0]
    for j in range(n_games):
        game = first_game + j
        rotation = game % rotations
        deal = game // rotations if duplicate else game
        seat_players(st, player_policy, player_label, player_params, seat_orders, rotation)
        # blocks hold whole rotation groups (games R*u .. R*u + R - 1; in duplicate mode a deal)
        block = block_of(game // rotations, total_games // rotations, blocks)
        # inlined (a skeleton): no call a game, and the loop's constant picks the turn loop
        total += play_one_game(st, gt, seed, deal, user_fn, np.bool_(False), block,
                               np.bool_(False), np.int64(-1), root, work, loop)
        if st.g[G_POLICY_ERROR] != 0:
            return -1 - j
        write_records(st, gt, pr, gr, j, game, deal, rotation)
    return total


@kernel_entry
def play_chunk_random(st, gt, pr, gr, seed, first_game, n_games, total_games, player_policy,
                      player_label, player_params, seat_orders, duplicate, user_fn, root, work):
    """chunk_games of a field of `random` in every seat."""
    return chunk_games(as_ref(st), as_ref(gt), as_ref(pr), as_ref(gr), seed, first_game, n_games,
                       total_games, player_policy, player_label, player_params, seat_orders,
                       duplicate, user_fn, as_ref(root), as_ref(work),
                       LOOP_RANDOM)


@kernel_entry
def play_chunk_policies(st, gt, pr, gr, seed, first_game, n_games, total_games, player_policy,
                        player_label, player_params, seat_orders, duplicate, user_fn, root, work):
    """chunk_games of a field without a search policy."""
    return chunk_games(as_ref(st), as_ref(gt), as_ref(pr), as_ref(gr), seed, first_game, n_games,
                       total_games, player_policy, player_label, player_params, seat_orders,
                       duplicate, user_fn, as_ref(root), as_ref(work),
                       LOOP_POLICIES)


@kernel_entry
def play_chunk_search(st, gt, pr, gr, seed, first_game, n_games, total_games, player_policy,
                      player_label, player_params, seat_orders, duplicate, user_fn, root, work):
    """chunk_games of a field with a search policy in some seat."""
    return chunk_games(as_ref(st), as_ref(gt), as_ref(pr), as_ref(gr), seed, first_game, n_games,
                       total_games, player_policy, player_label, player_params, seat_orders,
                       duplicate, user_fn, as_ref(root), as_ref(work),
                       LOOP_SEARCH)


PLAY_CHUNK = {LOOP_RANDOM: play_chunk_random, LOOP_POLICIES: play_chunk_policies,
              LOOP_SEARCH: play_chunk_search}
