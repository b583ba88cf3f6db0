"""Built-in and user policies: legal play checked by the referee, determinism, the seat rotation
of pooled fields, the information boundary of the View, and user policy files."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from simcell.config.load import PolicyField, load_default_game
from simcell.policies.registry import (
    ARCHETYPES,
    BUILTIN_POLICIES,
    HEURISTIC_PARAMS,
    N_PARAMS,
    param_vector,
)
from simcell.policies.user import UserPolicyError, compile_user_policy
from simcell.runner.fields import balance_table, homogeneous, seat_orders, seating
from simcell.runner.games import play_chunk, play_traced
from tests.parity import run_parity, with_rules

GAME = load_default_game()
SEED = 4242
HEURISTICS = ("greedy", "planner")


@pytest.mark.parametrize("policy", HEURISTICS)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_heuristic_play_is_legal_and_replays(policy: str, players: int) -> None:
    """The referee accepts every action of the heuristic policies and reproduces every record."""
    counts: Counter = Counter()
    failures = run_parity(GAME, players, SEED, range(60), counts, homogeneous(policy, players))
    assert failures == []
    assert counts["games"] == 60
    # heuristic play completes cards of every route (not just exhausts and passes)
    assert counts["enzymes"] > 0 and counts["exocytoses"] > 0


def test_rollout_play_is_legal_and_replays() -> None:
    """The search policy's decisions pass the referee (its playouts run on scratch states and
    leave the game's State alone)."""
    field = PolicyField(name="search", seats=("rollout", "greedy", "planner"),
                        params=(("rollout", (("playouts", 2.0), ("candidates", 3.0))),))
    counts: Counter = Counter()
    failures = run_parity(GAME, 3, SEED, range(4), counts, seating(field, 3))
    assert failures == [] and counts["games"] == 4


def test_pool_of_archetypes_is_legal() -> None:
    field = PolicyField(name="pool", pool=ARCHETYPES, rotation="cyclic")
    counts: Counter = Counter()
    failures = run_parity(GAME, 5, SEED, range(50), counts, seating(field, 5))
    assert failures == [] and counts["games"] == 50


def test_heuristics_beat_random_by_far() -> None:
    """A one-step evaluator must score far above random play (a check that can fail: a sign
    error in the evaluator gives random-like or worse play)."""
    field = PolicyField(name="mixed", seats=("random", "greedy", "random", "planner"))
    chunk = play_chunk(GAME, 4, SEED, 0, 400, seating(field, 4))
    hp = chunk.players["final_hp"].reshape(-1, 4).mean(axis=0)
    wins = chunk.players["win_share"].reshape(-1, 4).sum(axis=0)
    assert hp[1] > 2 * hp[0] and hp[3] > 2 * hp[2]
    assert wins[1] + wins[3] > 0.95 * 400


@pytest.mark.parametrize("players", [2, 5])
def test_policies_are_deterministic_given_the_seed(players: int) -> None:
    """Same seed, same records, however often and in whatever fresh buffers the games are
    played (this caught a policy reading past the end of an array at setup)."""
    for policy in HEURISTICS:
        s = homogeneous(policy, players)
        a = play_chunk(GAME, players, SEED, 0, 300, s)
        for _ in range(3):
            b = play_chunk(GAME, players, SEED, 0, 300, s)
            assert a.players.tobytes() == b.players.tobytes()
        c = play_chunk(GAME, players, SEED + 1, 0, 300, s)
        assert a.players.tobytes() != c.players.tobytes()


def test_temperature_zero_ignores_the_policy_stream() -> None:
    """With temperature 0 the greedy choice is the best action: games still differ by deal,
    and a softmax temperature changes play."""
    cold = play_chunk(GAME, 3, SEED, 0, 30, homogeneous("greedy", 3, temperature=0.0))
    warm = play_chunk(GAME, 3, SEED, 0, 30, homogeneous("greedy", 3, temperature=0.5))
    assert cold.players.tobytes() != warm.players.tobytes()


@pytest.mark.parametrize("rotation,players", [("cyclic", 4), ("cyclic", 5), ("all", 3)])
def test_rotation_balance_is_exact_over_complete_blocks(rotation: str, players: int) -> None:
    field = PolicyField(name="pool", pool=("greedy", "planner", "random")[: max(2, players - 2)],
                        rotation=rotation)
    s = seating(field, players)
    blocks = 3
    n = s.rotations * blocks
    chunk = play_chunk(GAME, players, SEED, 0, n, s)
    rec = chunk.players
    from_records = np.zeros((len(s.policies), players), np.int64)
    np.add.at(from_records, (rec["policy"], rec["seat"]), 1)
    assert (from_records == balance_table(s, n)).all()
    # every player id sits in every seat equally often
    per_player_seat = np.zeros((players, players), np.int64)
    np.add.at(per_player_seat, (rec["player"], rec["seat"]), 1)
    assert (per_player_seat == blocks * s.rotations // players).all()
    # one game past a complete block: player seating is no longer balanced, and the table shows it
    extra = balance_table(s, n + 1) - balance_table(s, n)
    assert extra.sum() == players and (extra.sum(axis=0) == 1).all()


def test_seat_orders() -> None:
    assert seat_orders(3, "cyclic").tolist() == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert len(seat_orders(4, "all")) == 24
    assert sorted(map(tuple, seat_orders(4, "all"))) == sorted(set(map(tuple, seat_orders(4, "all"))))


def test_param_vectors() -> None:
    v = param_vector("greedy", {"temperature": 0.0})
    assert len(v) == N_PARAMS
    assert v[list(HEURISTIC_PARAMS).index("temperature")] == 0.0
    detox = param_vector("detox_goals")
    assert detox[list(HEURISTIC_PARAMS).index("w_detox")] == BUILTIN_POLICIES["detox_goals"].defaults["w_detox"] > 1
    assert set(ARCHETYPES) <= set(BUILTIN_POLICIES)


def test_planner_defaults_at_a_player_count() -> None:
    """Where registry.PLANNER_AT_PLAYERS gives a count its own planner defaults, the planner
    (and `balanced`, the planner under another name) plays them at that count and only there,
    the archetypes its worths of resources and markers there (times their factors) but not its type weights; a config's value still wins; a run
    records them (resolved.json, `params_by_players`)."""
    from simcell.policies.registry import PLANNER_AT_PLAYERS

    assert PLANNER_AT_PLAYERS
    col = list(HEURISTIC_PARAMS).index
    for players, changes in PLANNER_AT_PLAYERS.items():
        other = next(p for p in (2, 3, 4, 5) if p not in PLANNER_AT_PLAYERS)
        for name in ("planner", "balanced"):
            spec = BUILTIN_POLICIES[name]
            for key, value in changes.items():
                assert param_vector(name, None, players)[col(key)] == value
                assert param_vector(name, None, other)[col(key)] == spec.defaults[key] != value
                assert param_vector(name, {key: 9.0}, players)[col(key)] == 9.0
        for name in set(ARCHETYPES) - {"balanced"}:
            # an archetype takes the count's worths of resources and markers (times its own
            # factor), never the count's type weights (its style)
            spec = BUILTIN_POLICIES[name]
            at, shared = param_vector(name, None, players), param_vector(name, None, other)
            for key in HEURISTIC_PARAMS:
                if key in changes and not key.startswith("w_"):
                    factor = spec.defaults[key] / BUILTIN_POLICIES["planner"].defaults[key]
                    assert at[col(key)] == changes[key] * factor
                else:
                    assert at[col(key)] == shared[col(key)]
        row = seating(PolicyField(name="f", policy="planner"), players).player_params[0]
        assert all(row[col(k)] == v for k, v in changes.items())
        assert (param_vector("greedy", None, players) == param_vector("greedy"))
    from simcell.runner.resolved import _params_by_players

    recorded = _params_by_players(PolicyField(name="f", policy="planner"), [2, 3, 4, 5])
    assert recorded == {str(p): {"planner": c} for p, c in PLANNER_AT_PLAYERS.items()}


def test_params_from_the_config_change_play() -> None:
    plain = play_chunk(GAME, 3, SEED, 0, 30, homogeneous("planner", 3))
    enzymes = play_chunk(GAME, 3, SEED, 0, 30, homogeneous("planner", 3, w_enzyme=4.0))
    assert (enzymes.players["completed_by_type"][:, 0].sum()
            > plain.players["completed_by_type"][:, 0].sum())


# -- the information boundary ---------------------------------------------------------------
def hide_differently(st, gt, rng: np.random.Generator) -> None:
    """Permute what docs/rules.md §9 hides, keeping every observation fixed: the deck order, the
    unrevealed and removed events and their order, rivals' kept cards (swapped with deck
    cards) and which Detoxification cards two_player_remove_detox removed (swapped with ones
    in the deck)."""
    from simcell.vocabulary import DETOX
    from simcell.kernel.state import (
        G_DECK_N,
        G_DETOX_REMOVED,
        G_EVENT_N,
        G_EVENT_NEXT,
        G_EVENTS_REMOVED,
        G_TO_MOVE,
    )

    deck_n = int(st.g[G_DECK_N])
    removed = [c for c in range(64) if int(st.g[G_DETOX_REMOVED]) >> c & 1]
    in_deck = [i for i in range(deck_n) if gt.card_type[st.deck[i]] == DETOX]
    if removed and in_deck:  # a removed Detoxification card comes back, a deck one leaves
        out, pos = int(rng.choice(removed)), int(rng.choice(in_deck))
        back = int(st.deck[pos])
        st.deck[pos] = out
        st.g[G_DETOX_REMOVED] ^= (1 << out) | (1 << back)
    st.deck[:deck_n] = rng.permutation(st.deck[:deck_n])
    nxt, n_ev = int(st.g[G_EVENT_NEXT]), int(st.g[G_EVENT_N])
    removed = [pos for pos in range(len(gt.event_id)) if int(st.g[G_EVENTS_REMOVED]) >> int(gt.event_id[pos]) & 1]
    if removed and n_ev > nxt:  # swap a set-aside event with an unrevealed one
        j = int(rng.integers(nxt, n_ev))
        out, back = removed[0], int(st.event_deck[j])
        st.event_deck[j] = out
        st.g[G_EVENTS_REMOVED] ^= (1 << int(gt.event_id[out])) | (1 << int(gt.event_id[back]))
    st.event_deck[nxt:n_ev] = rng.permutation(st.event_deck[nxt:n_ev])
    me = int(st.g[G_TO_MOVE])
    for rival in range(gt.players):
        kept = int(st.hand[rival]) & ~int(st.bought[rival])
        if rival == me or kept == 0 or deck_n == 0:
            continue
        card = next(c for c in range(64) if kept >> c & 1)
        pos = int(rng.integers(0, deck_n))
        other = int(st.deck[pos])
        st.deck[pos] = card
        st.hand[rival] = (int(st.hand[rival]) & ~(1 << card)) | (1 << other)


DETOX_REMOVED_2P = with_rules(GAME, two_player_remove_detox=True)


@pytest.mark.parametrize("policy,games,players,game", [
    ("greedy", 30, 4, GAME), ("planner", 30, 4, GAME), ("detox_goals", 30, 4, GAME),
    ("rollout", 4, 4, GAME), ("rollout", 4, 2, DETOX_REMOVED_2P),
])
def test_hidden_information_never_changes_an_action(policy: str, games: int, players: int, game) -> None:
    """Over hundreds of mid-game states: permuting what is hidden, with the observation fixed,
    never changes the built-in policy's action (and the test can fail: a policy that reads a
    rival's hand, the deck or the removed Detoxification cards would be caught; see
    test_the_probe_sees_hidden_changes)."""
    from tests.support.stepping import copy_state, game_in_progress, next_decision

    rng = np.random.default_rng(7)
    s = homogeneous(policy, players, **({"playouts": 2.0, "candidates": 3.0} if policy == "rollout" else {}))
    checked = 0
    for g in range(games):
        for k in (3, 25, 60, 110):
            found = game_in_progress(game, players, SEED, g, s, k)
            if found is None:
                continue
            st, gt = found
            for _ in range(2):
                other = copy_state(st)
                hide_differently(other, gt, rng)
                assert next_decision(copy_state(st), gt) == next_decision(other, gt), (g, k)
                checked += 1
    assert checked >= 20 * games // 3


def test_the_probe_sees_hidden_changes() -> None:
    """The permutation really changes hidden state: after it, the games diverge later on."""
    from tests.support.stepping import copy_state, game_in_progress, next_decision

    rng = np.random.default_rng(3)
    s = homogeneous("greedy", 4)
    diverged = 0
    for g in range(10):
        st, gt = game_in_progress(GAME, 4, SEED, g, s, 5)
        other = copy_state(st)
        hide_differently(other, gt, rng)
        a = [next_decision(st, gt) for _ in range(80)]
        b = [next_decision(other, gt) for _ in range(80)]
        diverged += a != b
    assert diverged >= 5


def test_the_oracle_reads_what_is_hidden() -> None:
    """The `oracle` (the rollout's search on the true hidden cards and events) is the one
    built-in policy whose action may change when only what is hidden changes: the same
    permutations that never move the rollout move it (so the invariance test above would catch
    a rollout that saw them)."""
    from tests.support.stepping import copy_state, game_in_progress, next_decision

    rng = np.random.default_rng(7)
    s = homogeneous("oracle", 3, playouts=2.0, candidates=3.0, window=5.0)
    moved = 0
    for g in range(6):
        for k in (10, 30, 50):
            found = game_in_progress(GAME, 3, SEED, g, s, k)
            if found is None:
                continue
            st, gt = found
            for _ in range(3):
                other = copy_state(st)
                hide_differently(other, gt, rng)
                moved += next_decision(copy_state(st), gt) != next_decision(other, gt)
    assert moved >= 3


def test_position_value_adds_what_the_seat_holds() -> None:
    """The search's position value (policies/position.py) counts a Health Point as one, a unit
    of stock at least at its weighed worth (more when it brings a card in hand nearer), and never counts
    a card in hand below nothing; it reads the seat's own position only (another seat's stock
    leaves it alone)."""
    from simcell.policies.position import position_value
    from simcell.policies.registry import ROLLOUT_INDEX, param_vector
    from simcell.vocabulary import ATP
    from tests.support.stepping import copy_state, game_in_progress

    params = np.array(param_vector("rollout", None, 3))
    col = list(HEURISTIC_PARAMS).index
    checked = 0
    for g in range(5):
        found = game_in_progress(GAME, 3, SEED, g, homogeneous("planner", 3), 40)
        if found is None:
            continue
        st, gt = found
        for seat in range(3):
            base = position_value(st, gt, seat, params)
            more = copy_state(st)
            more.hp[seat, 0] += 1
            assert position_value(more, gt, seat, params) == pytest.approx(base + 1.0)
            more.stock[seat, ATP] += 2
            stock = 2 * params[col("value_atp")] * params[ROLLOUT_INDEX["leaf_stock"]]
            assert position_value(more, gt, seat, params) >= base + 1.0 + stock - 1e-9
            rival = copy_state(st)
            rival.stock[(seat + 1) % 3, ATP] += 5
            assert position_value(rival, gt, seat, params) == pytest.approx(base)
            empty = copy_state(st)
            empty.hand[seat] = 0
            assert position_value(empty, gt, seat, params) <= base + 1e-12
            checked += 1
    assert checked >= 9


# -- user policies --------------------------------------------------------------------------
USER_OK = """
def first_or_last(obs, legal, n_legal, params, key):
    if params[0] > 0:
        return n_legal - 1
    return 0
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.py"
    path.write_text(textwrap.dedent(text))
    return path


def test_user_policy_loads_and_plays(tmp_path: Path) -> None:
    _write(tmp_path, USER_OK)
    field = PolicyField(name="mine", seats=("mine.py:first_or_last", "greedy", "random"),
                        params=(("mine.py:first_or_last", (("last", 1.0),)),))
    s = seating(field, 3)
    chunk = play_chunk(GAME, 3, SEED, 0, 20, s, base=tmp_path)
    assert len(chunk.players) == 60
    traced = play_traced(GAME, 3, SEED, 0, s, base=tmp_path)
    assert traced.players["final_hp"].shape == (3,)
    counts: Counter = Counter()
    assert run_parity_user(tmp_path, s, counts) == []


USER_LARGEST = """
def largest_code(obs, legal, n_legal, params, key):
    best = 0
    for i in range(1, n_legal):
        if legal[i] > legal[best]:
            best = i
    return best
"""


def _traced_decisions(trace) -> list[tuple[int, list[int], int]]:
    """(automatic, legal codes, chosen code) of every decision in a kernel trace."""
    from simcell.vocabulary import TRACE_DECISION, TRACE_END, TRACE_SHUFFLE

    out, pos, words = [], 0, [int(w) for w in trace]
    while words[pos] != TRACE_END:
        tag = words[pos]
        if tag == TRACE_SHUFFLE:
            pos += 4 + words[pos + 3]
        else:
            assert tag == TRACE_DECISION
            automatic, n = words[pos + 2], words[pos + 3]
            out.append((automatic, words[pos + 4: pos + 4 + n], words[pos + 4 + n]))
            pos += 5 + n
    return out


def test_user_policy_sees_the_decisions_legal_actions(tmp_path: Path) -> None:
    """A user policy reads the legal actions of the decision in front of it: one that takes the
    largest code takes the largest of the traced legal list at every decision (the turn loop
    lists into a vector of its own and hands the user policy the State's copy, which must be
    this decision's)."""
    _write(tmp_path, USER_LARGEST)
    s = seating(PolicyField(name="x", seats=("mine.py:largest_code",) * 3), 3)
    for g in range(3):
        decisions = _traced_decisions(play_traced(GAME, 3, SEED, g, s, base=tmp_path).trace)
        chosen = [(max(legal), code) for automatic, legal, code in decisions if not automatic]
        assert len(chosen) > 100
        assert all(best == code for best, code in chosen)


def run_parity_user(base: Path, s, counts: Counter) -> list[str]:
    import os

    cwd = os.getcwd()
    os.chdir(base)  # user policy paths are relative to the config's folder
    try:
        return run_parity(GAME, 3, SEED, range(5), counts, s)
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("text,spec,message", [
    (USER_OK, "mine.py:nothing_here", "has no function 'nothing_here'"),
    (USER_OK, "other.py:first_or_last", "file not found"),
    ("def two(obs, legal):\n    return 0\n", "mine.py:two", "takes (obs, legal) but a policy takes exactly"),
    ("def bad(obs, legal, n_legal, params, key):\n    return {'a': 1}\n", "mine.py:bad", "does not compile"),
    ("import no_such_module_anywhere\n", "mine.py:x", "importing"),
])
def test_malformed_user_policy_gets_a_clear_error(tmp_path: Path, text: str, spec: str, message: str) -> None:
    _write(tmp_path, text)
    with pytest.raises(UserPolicyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compile_user_policy(spec, tmp_path)


def test_user_policy_returning_a_bad_index_is_reported(tmp_path: Path) -> None:
    _write(tmp_path, "def oob(obs, legal, n_legal, params, key):\n    return n_legal\n")
    s = seating(PolicyField(name="x", seats=("mine.py:oob", "random")), 2)
    with pytest.raises(UserPolicyError, match="outside 0 .. n_legal - 1 in game 0"):
        play_chunk(GAME, 2, SEED, 0, 5, s, base=tmp_path)
