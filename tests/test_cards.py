"""Card analytics (card issue) on purpose-built card sets, by the within-type contrast, with the
replicate counts of docs/method.md §16; and the market figures on a hand-built
scenario.

Replicates: the slow tests run 40 runs per deck with the thresholds of docs/method.md §16. The default run
has 10 per deck; its thresholds come from the binomial so that a correct engine fails each check
with probability below 0.5%:
- coverage of the nominal 95% within-type intervals, pooled over cards and runs, within the
  0.25% and 99.75% binomial quantiles of n intervals at p = 0.95;
- planted card first (junk last) with a simultaneous interval excluding 0: at least k of 10,
  where P(X < k | 10, 0.95) < 0.5% (k = 7; the slow run asks 38 of 40 of a correct engine);
- clone difference covering 0: at least k of 10 with P(X < k | 10, 0.95) < 0.5% (k = 7).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simcell.config.load import load_default_game
from simcell.vocabulary import CARD_FIELDS, RESOURCES
from simcell.reports import cards as cs
from simcell.reports.data import RunData
from simcell.reports.intervals import OUT_OF_BAND, jackknife
from simcell.reports.card_table import segment_cards
from simcell.runner.run import RunOptions, Runner
from tests.test_block_aggregates import slide_scenario

PLANTED, JUNK, CLONE_A, CLONE_B = 1, 2, 3, 4  # enzyme ids in the shipped set
PLAYERS = 3
GAMES = 6000
KEPT_HP = 2  # the planted deck's enzymes: worth keeping when dealt (uniform_deck)
BAND = 1.0


def _value(card, key):
    if key == "gain":
        return "{ " + ", ".join(f"{r} = {n}" for r, n in zip(RESOURCES, card.gain) if n) + " }"
    v = getattr(card, key)
    return f'"{v}"' if isinstance(v, str) else str(v)


def write_deck(path: Path, cards: list[tuple]) -> Path:
    """A cards file from (card, type, the card whose values it takes, {field: added}) rows."""
    lines = []
    for c, card_type, ref, added in cards:
        lines += ["[[card]]", f"id = {c.id}", f'name = "{c.name}"', f'type = "{card_type}"']
        for key in CARD_FIELDS[card_type]:
            value = getattr(ref, key)
            if value is None:
                continue
            if isinstance(value, int):
                lines.append(f"{key} = {value + added.get(key, 0)}")
            else:
                lines.append(f"{key} = {_value(ref, key)}")
        lines.append("")
    path.write_text("\n".join(lines))
    return path


def uniform_deck(folder: Path, planted: bool) -> Path:
    """A cards file in which every card of a type has the first card of that type's values;
    with `planted`, enzyme PLANTED has +3 HP and enzyme JUNK +3 ATP, and every enzyme
    KEPT_HP more HP: a competent player hands back a junk card when dealt it, so junk costs its
    holder something only where the card it displaces from the kept hand is one worth keeping
    (with the shipped first enzyme's 2 HP, an enzyme is the card handed back anyway)."""
    game = load_default_game()
    reference = {}
    for c in game.cards:
        reference.setdefault(c.type, c)
    added = {}
    if planted:
        added = {c.id: {"hp": KEPT_HP} for c in game.cards if c.type == "enzyme"}
        added[PLANTED] = {"hp": KEPT_HP + 3}
        added[JUNK] = {"hp": KEPT_HP, "atp": 3}
    return write_deck(folder / ("planted.toml" if planted else "uniform.toml"),
                      [(c, c.type, reference[c.type], added.get(c.id, {})) for c in game.cards])


def play(folder: Path, deck: Path, seed: int, games: int = GAMES) -> RunData:
    """A greedy run of the deck, PLAYERS players."""
    config = folder / f"run-{seed}.toml"
    config.write_text(f"""
[run]
players = {PLAYERS}
games = {games}
seed = {seed}

[[field]]
name = "greedy"
policy = "greedy"

[data]
cards = "{deck.name}"
""")
    out = folder / f"out-{seed}"
    Runner(config, RunOptions(out=out, workers=1)).run()
    return RunData(out)


def replicate(folder: Path, deck: Path, seed: int, games: int = GAMES) -> tuple[RunData, pd.DataFrame]:
    run = play(folder, deck, seed, games)
    return run, segment_cards(run, run.segments[0], BAND)


def clone_difference(run: RunData) -> object:
    """Jackknife interval of effect(CLONE_A) - effect(CLONE_B) on win share."""
    seg = run.segments[0]
    df = run.records("players", seg, ["win_share", "dealt_mask"])
    starts = cs.block_starts(np.repeat(run.block_of_games(seg, np.arange(seg.games)), PLAYERS),
                             seg.blocks)
    num, den = cs.opening_hand_sums(df["dealt_mask"].to_numpy(), df["win_share"].to_numpy(),
                                    PLAYERS, starts)
    return jackknife(lambda na, da, nb, db: na / da - nb / db,
                     num[:, CLONE_A], den[:, CLONE_A], num[:, CLONE_B], den[:, CLONE_B])


def check_uniform(folder: Path, replicates: int, seeds: int, games: int = GAMES) -> dict:
    deck = uniform_deck(folder, planted=False)
    covered = total = flagged = clone_ok = 0
    for r in range(replicates):
        run, t = replicate(folder, deck, seeds + r, games)
        ok = np.isfinite(t["contrast_pp_se"])
        covered += int(((t["contrast_pp_low"] <= 0) & (t["contrast_pp_high"] >= 0))[ok].sum())
        total += int(ok.sum())
        flagged += int(t["flagged"].sum())
        d = clone_difference(run)
        clone_ok += int(d.low <= 0 <= d.high)
    return {"coverage": covered / total, "intervals": total, "flagged": flagged, "clone_ok": clone_ok}


def check_planted(folder: Path, replicates: int, seeds: int, games: int = GAMES) -> dict:
    deck = uniform_deck(folder, planted=True)
    first = last = 0
    for r in range(replicates):
        _, t = replicate(folder, deck, seeds + r, games)
        ranked = t[np.isfinite(t["contrast_pp"])].sort_values("contrast_pp", ascending=False)
        top, bottom = ranked.iloc[0], ranked.iloc[-1]
        first += int(top["card"] == PLANTED and top["contrast_sim_low"] > 0)
        last += int(bottom["card"] == JUNK)  # docs/method.md: junk ranks last
    return {"first": first, "last": last}


def at_least(n: int, p: float = 0.95, risk: float = 0.005) -> int:
    """The pass threshold k (pass when X >= k): the largest k with P(X < k | n, p) < risk."""
    k = 0
    while stats.binom.cdf(k, n, p) < risk:  # P(X <= k) < risk: failing at X <= k is rare
        k += 1
    return k  # pass when X >= k


def test_thresholds_from_the_binomial():
    assert at_least(10) == 7  # P(X <= 6 | 10, 0.95) = 0.1%, P(X <= 7) = 1.2%
    assert stats.binom.cdf(6, 10, 0.95) < 0.005 < stats.binom.cdf(7, 10, 0.95)


def test_uniform_deck_coverage_flags_and_clones(tmp_path):
    res = check_uniform(tmp_path, 10, seeds=1000)
    n = res["intervals"]
    lo = stats.binom.ppf(0.0025, n, 0.95) / n
    hi = stats.binom.ppf(0.9975, n, 0.95) / n
    assert lo <= res["coverage"] <= hi, res
    assert res["flagged"] <= 10, res  # at most 1 per run on average
    assert res["clone_ok"] >= at_least(10), res


def test_planted_card_first_and_junk_last(tmp_path):
    res = check_planted(tmp_path, 10, seeds=2000)
    assert res["first"] >= at_least(10), res
    assert res["last"] >= at_least(10), res


@pytest.mark.slow
def test_uniform_deck_forty_replicates(tmp_path):
    res = check_uniform(tmp_path, 40, seeds=5000, games=20_000)
    assert 0.925 <= res["coverage"] <= 0.975, res
    assert res["flagged"] <= 40, res
    assert res["clone_ok"] >= 34, res


@pytest.mark.slow
def test_planted_forty_replicates(tmp_path):
    res = check_planted(tmp_path, 40, seeds=6000, games=20_000)
    assert res["first"] >= 38 and res["last"] >= 38, res


def test_market_figures_on_the_sliding_card():
    """The report's market table on the hand-built scenario: 4 exposures at prices 3, 2, 1, 0,
    no purchase, one discard unbought."""
    st, card = slide_scenario()

    def long(arr, axes):
        idx = np.nonzero(arr[0])
        return pd.DataFrame({**{a: idx[i] for i, a in enumerate(axes)}, "count": arr[0][idx]})

    m = cs.market(long(st.tallies.offered, ("card", "slot", "price")),
                  long(st.tallies.bought, ("card", "slot", "price")),
                  long(st.tallies.discarded, ("card",)))
    mine = m[m["card"] == card].set_index("price")
    assert mine["exposures"].to_dict() == {0: 1, 1: 1, 2: 1, 3: 1}
    assert (mine["purchases"] == 0).all() and (mine["pick_rate"] == 0).all()
    assert (mine["discarded_unbought"] == 1).all()


def test_statistics_by_hand():
    q = cs.bh_qvalues(np.array([0.01, 0.04, 0.03, 0.5]))
    assert q == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.5])
    s = cs.shrink(np.array([1.0, -1.0, 3.0]), np.array([10.0, 10.0, 10.0]), np.array(["a", "a", "a"]))
    assert np.allclose(s, 1.0)  # noise swamps the spread: everything shrinks to the mean
    lo, hi = cs.rank_intervals(np.array([10.0, 0.0, -10.0]), np.array([0.1, 0.1, 0.1]), seed=1)
    assert list(lo) == [1, 2, 3] and list(hi) == [1, 2, 3]
    counts, sums = cs.bits_by_block(np.array([0, 1, 2**63, 6, 2**40 + 2**3], np.uint64),
                                    np.array([0, 3, 5]), np.arange(10.0).reshape(5, 2))
    assert np.nonzero(counts[0])[0].tolist() == [0, 63] and counts[0].sum() == 2
    assert np.nonzero(counts[1])[0].tolist() == [1, 2, 3, 40] and counts[1].sum() == 4
    assert sums[0, 63].tolist() == [4.0, 5.0] and sums[1, 3].tolist() == [8.0, 9.0]
    # two 2-player games: card 0 dealt to the winner of game 0, card 1 to the loser of game 1;
    # blocks: game 0 in block 0, game 1 in block 1
    dealt = np.array([1, 0, 2, 0], np.uint64)
    num, den = cs.opening_hand_sums(dealt, np.array([1.0, 0.0, 0.0, 1.0]), 2, np.array([0, 2, 4]))
    both, _ = cs.opening_hand_sums(dealt, np.array([[1.0, 5.0], [0.0, 3.0], [0.0, 2.0], [1.0, 4.0]]), 2,
                                   np.array([0, 2, 4]))
    assert both[0, 0].tolist() == [1.0, 2.0] and both[1, 1].tolist() == [-1.0, -2.0]
    assert num[:, :2].tolist() == [[1.0, 0.0], [0.0, -1.0]]
    assert den[:, :2].tolist() == [[1.0, 0.0], [0.0, 1.0]] and den[:, 2:].sum() == 0
    e = cs.card_effects(num, den, np.array([0, 1]), np.array(["enzyme", "enzyme"]))
    assert e.effect.tolist() == [1.0, -1.0] and e.contrast.tolist() == [2.0, -2.0]


def test_a_card_never_dealt_has_no_effect_and_prints_no_warning():
    """A short run deals some cards in no game: their effect is undefined, and
    numpy's "Mean of empty slice" must not reach the user's terminal."""
    num = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [1.0, 1.0, 0.0]])
    den = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = cs.card_effects(num, den, np.array([0, 1, 2]), np.array(["enzyme", "enzyme", "detox"]))
    assert np.isnan(e.effect[2]) and np.isnan(e.contrast[2]) and np.isfinite(e.effect_se[:2]).all()


def test_card_sums_part_by_part_equal_the_whole_run(tmp_path):
    """The card section sums the records one part file at a time (memory bounded by a part);
    over a run of several parts with blocks split across them, the sums equal those computed
    from all records at once, and the association's rows are the run's first games."""
    from simcell.reports.card_table import card_sums

    deck = uniform_deck(tmp_path, planted=False)
    run, _ = replicate(tmp_path, deck, seed=5, games=2990)  # 4 parts of 748 games; blocks of 29.9
    seg = run.segments[0]
    parts = list(run.record_parts("players", seg, ["win_share"]))
    assert len(parts) > 2
    edges = [(run.block_of_games(seg, a["game"].to_numpy()[-1:])[0],
              run.block_of_games(seg, b["game"].to_numpy()[:1])[0]) for a, b in zip(parts, parts[1:])]
    assert any(x == y for x, y in edges)  # a block split between two parts
    df = run.records("players", seg, ["win_share", "final_hp", "dealt_mask", "kept_mask",
                                      "bought_mask", "completed_mask"])
    starts = cs.block_starts(np.repeat(run.block_of_games(seg, np.arange(seg.games)), PLAYERS),
                             seg.blocks)
    dealt = df["dealt_mask"].to_numpy()
    values = np.stack([df["win_share"].to_numpy(), df["final_hp"].to_numpy(np.float64)], axis=1)
    opening, games = cs.opening_hand_sums(dealt, values, PLAYERS, starts)
    acquired = df["kept_mask"].to_numpy() | df["bought_mask"].to_numpy()
    sums = card_sums(run, seg)
    assert np.allclose(sums.opening, opening, rtol=0, atol=1e-9)
    assert np.array_equal(sums.dealt, games)
    assert np.array_equal(sums.kept, cs.bits_by_block(df["kept_mask"].to_numpy() & dealt, starts)[0])
    assert np.array_equal(sums.acquired, cs.bits_by_block(acquired, starts)[0])
    assert np.array_equal(sums.completed,
                          cs.bits_by_block(df["completed_mask"].to_numpy() & acquired, starts)[0])
    assert sums.dealt.sum() > 0 and sums.completed.sum() > 0
    assert sums.head["game"].tolist() == df["game"].tolist()  # all 2990 games: < ASSOCIATION_GAMES


def test_association_is_within_game_ols_with_game_clustered_errors():
    """The association of each card equals statsmodels' OLS of win share on completing it, the
    controls (seat and policy dummies, cards completed) and game fixed effects, with the
    cluster-by-game sandwich (no small-sample factor); also with controls that are collinear
    (a policy column that repeats a seat column)."""
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    games, p = 300, 4
    for collinear in (False, True):
        seat = np.tile(np.arange(p), games)
        policy = (seat == 1).astype(int) if collinear else rng.integers(0, 3, games * p)
        done = rng.integers(0, 3, (games * p, 6))
        masks = np.zeros(games * p, np.uint64)
        for card in (2, 5, 40):
            hit = rng.random(games * p) < 0.3
            masks[hit] |= np.uint64(1) << np.uint64(card)
        win = rng.random((games, p)) + 0.4 * ((masks >> np.uint64(5)) & np.uint64(1)).reshape(games, p)
        win = (win == win.max(axis=1, keepdims=True)).astype(float).reshape(-1)
        df = pd.DataFrame({"seat": seat, "policy": policy, "win_share": win, "completed_mask": masks,
                           "cards_completed": done.sum(axis=1)})
        ids = np.array([2, 5, 40])
        beta, se = cs.association(df, p, ids)
        game = np.repeat(np.arange(games), p)

        def within(x):
            x = np.asarray(x, float).reshape(games, p, -1)
            return (x - x.mean(axis=1, keepdims=True)).reshape(games * p, -1)

        controls = np.hstack([np.eye(p)[seat][:, 1:], np.eye(policy.max() + 1)[policy][:, 1:],
                              df[["cards_completed"]].to_numpy(float)])
        for j, card in enumerate(ids):
            x = ((masks >> np.uint64(card)) & np.uint64(1)).astype(float)[:, None]
            with warnings.catch_warnings():  # the collinear case is rank-deficient by design
                warnings.simplefilter("ignore", sm.tools.sm_exceptions.SingularMatrixWarning)
                fit = sm.OLS(within(win)[:, 0], within(np.hstack([x, controls]))).fit(
                    cov_type="cluster",
                    cov_kwds={"groups": game, "use_correction": False, "df_correction": False})
            assert beta[j] == pytest.approx(fit.params[0], rel=1e-9, abs=1e-12)
            assert se[j] == pytest.approx(fit.bse[0], rel=1e-7)


def _bits_by_block_loop(masks, starts, weights):
    """bits_by_block row by row in plain Python: pass by pass (every row's lowest set bit in row
    order, then every row's next), each weight added to the running sum of its card."""
    k = len(starts) - 1
    counts, sums = np.zeros((k, 64)), np.zeros((k, 64, weights.shape[1]))
    for b in range(k):
        left = [int(x) for x in masks[starts[b]:starts[b + 1]]]
        while any(left):
            for i, m in enumerate(left):
                if m:
                    c = (m & -m).bit_length() - 1
                    counts[b, c] += 1
                    sums[b, c] += weights[starts[b] + i]
                    left[i] = m & (m - 1)
    return counts, sums


def test_bits_by_block_adds_in_a_fixed_order_to_the_last_bit():
    """The vectorised passes add each card's weights in the order of a row-by-row loop, so the
    report's card figures are fixed to the last bit: equal bits, not merely close."""
    rng = np.random.default_rng(3)
    rows = 5000
    masks = np.zeros(rows, np.uint64)
    for _ in range(6):  # sparse masks, up to 6 cards a row, bit 63 included
        masks |= np.uint64(1) << rng.integers(0, 64, rows).astype(np.uint64)
    masks[rng.random(rows) < 0.1] = 0
    weights = rng.normal(size=(rows, 2)) * 1e3
    starts = np.searchsorted(np.sort(rng.integers(0, 7, rows)), np.arange(8))
    counts, sums = cs.bits_by_block(masks, starts, weights)
    ref_counts, ref_sums = _bits_by_block_loop(masks, starts, weights)
    assert np.array_equal(counts, ref_counts) and counts.sum() > rows
    assert np.array_equal(sums, ref_sums)
    assert np.array_equal(cs.bits_by_block(masks, starts)[0], ref_counts)
    assert cs.bits_by_block(masks, starts)[1] is None


# -- type level (docs/method.md §5) ------------------------------------------------------
# A uniform deck is no null for types (types differ by design: its Enzymes are about 10 pp below
# the average card). The null is a deck of one card: every card the first shipped Enzyme under its
# own id and name, read with the shipped types as labels, so every label's true gap is exactly 0;
# planted, the cards labelled Enzyme have +2 HP.
TYPE_BAND = 1.0


def one_card_deck(folder: Path, planted: bool) -> Path:
    """Every card the shipped first enzyme; with `planted`, the enzyme-labelled ones +1 HP. The
    plant is small because it moves the all-card mean: the other labels' true gap is -10/43 of
    the enzymes' effect, which a larger plant (kept whenever dealt) pushes past the band."""
    game = load_default_game()
    ref = next(c for c in game.cards if c.type == "enzyme")
    return write_deck(folder / ("one-card-planted.toml" if planted else "one-card.toml"),
                      [(c, "enzyme", ref, {"hp": 1} if planted and c.type == "enzyme" else {})
                       for c in game.cards])


def labelled_types(folder: Path, deck: Path, seed: int, games: int) -> pd.DataFrame:
    """The report's type table of a run of `deck`, with the shipped types as labels."""
    from simcell.reports.card_table import card_sums, type_table

    run = play(folder, deck, seed, games)
    sums = card_sums(run, run.segments[0])
    shipped = load_default_game().cards
    ids = np.array([c.id for c in shipped])
    labels = np.array([c.type for c in shipped])
    return type_table(cs.type_effects(sums.opening[..., 0], sums.dealt, ids, labels), TYPE_BAND)


def test_type_effects_by_hand():
    # two blocks, four cards: types a (cards 0, 1) and b (cards 2, 3)
    num = np.zeros((2, 64))
    den = np.zeros((2, 64))
    num[:, :4] = [[2.0, 0.0, -1.0, -1.0], [2.0, 2.0, -3.0, -1.0]]
    den[:, :4] = 1.0
    t = cs.type_effects(num, den, np.arange(4), np.array(["a", "a", "b", "b"]))
    # effects 2, 1, -2, -1: all-card mean 0, type a +1.5, type b -1.5
    assert t.types.tolist() == ["a", "b"] and t.cards.tolist() == [2, 2]
    assert t.gap.tolist() == [1.5, -1.5]
    # leave block 0 out: a (2 + 2) / 2 = 2 against mean 0 (gap 2); block 1 out: (2 + 0) / 2 = 1 (gap 1)
    assert t.gap_se[0] == pytest.approx(np.sqrt(0.5 * ((2 - 1.5) ** 2 + (1 - 1.5) ** 2)))


def test_type_verdict_flags_a_planted_type(tmp_path):
    t = labelled_types(tmp_path, one_card_deck(tmp_path, planted=True), 3000, 20_000)
    row = t.set_index("type").loc["enzyme"]
    assert row["verdict"] == OUT_OF_BAND, t
    assert t.loc[t["gap_pp"].idxmax(), "type"] == "enzyme"
    assert (t.loc[t["type"] != "enzyme", "verdict"] != OUT_OF_BAND).all(), t


def test_type_verdict_on_a_one_card_deck(tmp_path):
    deck = one_card_deck(tmp_path, planted=False)
    flagged = sum((labelled_types(tmp_path, deck, 3100 + r, GAMES)["verdict"] == OUT_OF_BAND).any()
                  for r in range(5))
    assert flagged <= 2  # P(X >= 3 | 5, 0.05) = 0.1%


@pytest.mark.slow
def test_type_verdict_on_a_one_card_deck_forty_replicates(tmp_path):
    deck = one_card_deck(tmp_path, planted=False)
    clean = sum(not (labelled_types(tmp_path, deck, 7000 + r, GAMES)["verdict"] == OUT_OF_BAND).any()
                for r in range(40))
    print(f"\none-card deck, shipped types as labels: no type flagged in {clean} of 40 replicates")
    assert clean >= 38, clean
