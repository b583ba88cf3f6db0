"""The seat-adjusted opening-hand effects (reports/cards.seat_adjusted, docs/method.md §4): the
part of a card's within-game contrast that the dealt player's seat explains, fitted on the other
half of the blocks, is taken out. Shown here on synthetic deals, where the truth is known: the
adjustment is exactly nothing when seats do not matter, its left-out totals are the estimator
refitted without the block, and with a strong seat effect the adjusted intervals stay centred
on the true effects at their nominal coverage while narrower than the plain ones. A broken
adjustment (fitted on the games it adjusts, or centred wrong) fails these tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simcell.reports import cards as cs
from simcell.reports.card_table import card_part_sums, seat_part_sums

P = 5
CARDS = 20


def deals(rng: np.random.Generator, games: int, seat_win: np.ndarray, card_gain: np.ndarray):
    """Player records of synthetic games: each player dealt 3 distinct cards, win share drawn
    from the seat's chance plus each dealt card's gain (a multinomial winner per game)."""
    masks = np.zeros((games, P), np.uint64)
    logits = np.tile(np.log(seat_win), (games, 1))
    for g in range(games):
        hands = rng.permutation(CARDS)[: 3 * P].reshape(P, 3)
        for s in range(P):
            masks[g, s] = np.uint64(sum(1 << int(c) for c in hands[s]))
            logits[g, s] += card_gain[hands[s]].sum()
    prob = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    winner = (rng.random(games)[:, None] > np.cumsum(prob, axis=1)).sum(axis=1)
    win = np.zeros((games, P))
    win[np.arange(games), winner] = 1.0
    return pd.DataFrame({
        "game": np.repeat(np.arange(games), P), "seat": np.tile(np.arange(P), games),
        "win_share": win.reshape(-1), "final_hp": (win * 10).reshape(-1),
        "dealt_mask": masks.reshape(-1), "kept_mask": masks.reshape(-1),
        "bought_mask": np.zeros(games * P, np.uint64), "completed_mask": np.zeros(games * P, np.uint64)})


def block_sums(df: pd.DataFrame, blocks: int):
    games = len(df) // P
    starts = cs.block_starts(np.repeat(np.arange(games) * blocks // games, P), blocks)
    opening, dealt, *_ = card_part_sums(df, P, starts)
    seat_open, by_seat, per_block = seat_part_sums(df, P, starts)
    return opening[..., 0], dealt, seat_open, by_seat[..., 0], per_block


def reference_total(num, seat_open, seat_values, games, keep) -> np.ndarray:
    """The adjusted total over the blocks `keep`, folds by original block index, as written in
    docs/method.md: each block less its cards' seat parts at the other fold's seat means."""
    fold = np.arange(len(num)) % 2
    f = {F: seat_values[keep & (fold == F)].sum(axis=0) / games[keep & (fold == F)].sum() for F in (0, 1)}
    out = np.zeros(num.shape[1])
    for b in np.nonzero(keep)[0]:
        out += num[b] - seat_open[b] @ f[1 - fold[b]]
    return out


def test_no_seat_effect_means_no_adjustment():
    rng = np.random.default_rng(1)
    df = deals(rng, 400, np.full(P, 1.0 / P), np.zeros(CARDS))
    num, dealt, seat_open, _, games = block_sums(df, 8)
    equal = np.tile(games[:, None] / P, (1, P))  # every seat the same mean in both folds
    adjusted = cs.seat_adjusted(num, seat_open, equal, games)
    plain = cs.Numerators.plain(num)
    assert np.allclose(adjusted.total, plain.total) and np.allclose(adjusted.left, plain.left)


def test_left_out_totals_refit_the_seat_means_without_the_block():
    rng = np.random.default_rng(2)
    df = deals(rng, 600, np.array([0.4, 0.25, 0.15, 0.12, 0.08]), rng.normal(0, 0.3, CARDS))
    num, _, seat_open, seat_values, games = block_sums(df, 10)
    adj = cs.seat_adjusted(num, seat_open, seat_values, games)
    every = np.ones(10, bool)
    assert np.allclose(adj.total, reference_total(num, seat_open, seat_values, games, every))
    for b in range(10):
        keep = every.copy()
        keep[b] = False
        assert np.allclose(adj.left[b], reference_total(num, seat_open, seat_values, games, keep))


def test_a_seat_mean_fitted_on_the_games_it_adjusts_is_caught():
    """The check above fails on an adjustment whose seat means come from the block's own fold."""
    rng = np.random.default_rng(3)
    df = deals(rng, 600, np.array([0.4, 0.25, 0.15, 0.12, 0.08]), rng.normal(0, 0.3, CARDS))
    num, _, seat_open, seat_values, games = block_sums(df, 10)
    fold = np.arange(10) % 2
    f = np.stack([seat_values[fold == F].sum(0) / games[fold == F].sum() for F in (0, 1)])
    own = (num - np.einsum("kcs,ks->kc", seat_open, f[fold])).sum(axis=0)
    assert not np.allclose(own, reference_total(num, seat_open, seat_values, games, np.ones(10, bool)))


def test_adjusted_intervals_cover_the_true_effects_and_are_narrower():
    """A strong seat effect (the first seat wins 55%) and two cards with a gain (one up, one
    down), every card of one type: each card's contrast against the others, over 40
    replicates, has intervals that cover the truth at about 95% (pooled over 20 cards x 40
    replicates), plain and adjusted alike, and the adjusted ones are narrower by the seats'
    share of the variance."""
    rng = np.random.default_rng(4)
    seat_win = np.array([0.55, 0.25, 0.1, 0.06, 0.04])
    gain = np.zeros(CARDS)
    gain[0], gain[1] = 0.6, -0.6
    ids, types = np.arange(CARDS), np.array(["enzyme"] * CARDS)
    truth = []
    covered = {"plain": [], "adjusted": []}
    width = {"plain": [], "adjusted": []}
    # the truth: each card's expected contrast, from a large sample of the same model
    big = deals(np.random.default_rng(99), 40_000, seat_win, gain)
    num, dealt, *_ = block_sums(big, 50)
    truth = cs.card_effects(num, dealt, ids, types).contrast
    for _rep in range(40):
        df = deals(rng, 1500, seat_win, gain)
        num, dealt, seat_open, seat_values, games = block_sums(df, 50)
        for name, n in (("plain", cs.Numerators.plain(num)),
                        ("adjusted", cs.seat_adjusted(num, seat_open, seat_values, games))):
            e = cs.card_effects(n, dealt, ids, types)
            q = stats.t.ppf(0.975, e.df)
            covered[name] += list(np.abs(e.contrast - truth) <= q * e.contrast_se)
            width[name] += list(e.contrast_se)
    for name in covered:
        assert 0.925 <= np.mean(covered[name]) <= 0.975, (name, np.mean(covered[name]))
    ratio = (np.mean(width["plain"]) / np.mean(width["adjusted"])) ** 2
    assert ratio > 1.15, ratio


@pytest.mark.parametrize("blocks", [2, 3])
def test_too_few_blocks_for_two_folds_leave_the_figures_plain(blocks):
    rng = np.random.default_rng(5)
    df = deals(rng, 60, np.array([0.4, 0.25, 0.15, 0.12, 0.08]), np.zeros(CARDS))
    num, _, seat_open, seat_values, games = block_sums(df, blocks)
    adj = cs.seat_adjusted(num, seat_open, seat_values, games)
    assert np.array_equal(adj.total, cs.Numerators.plain(num).total)


# -- intervals that may be watched (reports/intervals.watched_quantile) --------------------------
def test_the_watched_quantile_is_pocock_s_boundary():
    """One look is the usual 1.96; more looks widen it as Pocock's tables say (2 looks 2.178,
    5 looks 2.413, 10 looks 2.555 at 95%), to the third decimal of the recursion's grid."""
    from simcell.reports.intervals import watched_quantile

    assert watched_quantile(1) == pytest.approx(1.95996, abs=1e-4)
    for looks, pocock in ((2, 2.178), (5, 2.413), (10, 2.555)):
        assert watched_quantile(looks) == pytest.approx(pocock, abs=0.004)


def _stop_rate(q_of_look, edits: int, looks: int, rng: np.random.Generator) -> float:
    """A/A edits watched block by block from the studio's first figures (MIN_BLOCKS): per block
    a paired difference of true mean zero (a jackknife over the finished blocks, df = blocks −
    1); stopped at the first look whose interval clears zero. The share of edits ever stopped:
    the false-moved rate."""
    from simcell.studio.figures import MIN_BLOCKS

    stopped = 0
    for _ in range(edits):
        x = rng.standard_t(6, size=looks) * 0.7 + rng.normal(size=looks) * 0.3  # heavy-ish tails
        for k in range(MIN_BLOCKS, looks + 1):
            mean = x[:k].mean()
            left = (x[:k].sum() - x[:k]) / (k - 1)
            se = np.sqrt((k - 1) / k * ((left - left.mean()) ** 2).sum())
            if abs(mean) > q_of_look(k) * se:
                stopped += 1
                break
    return stopped / edits


def test_watching_an_aa_edit_block_by_block_stops_it_wrongly_at_most_5_percent():
    """1,000 A/A edits of 20 blocks, each looked at after every block and stopped at the first
    interval that clears zero (what the studio lets a designer do): with the watched interval
    the edits stopped wrongly are at most 5%; with the fixed-sample interval it shows the
    designer a false 'moved' far more often, which is why the studio watches its intervals."""
    from simcell.reports.intervals import watched_t

    looks = 20
    rng = np.random.default_rng(7)
    watched = _stop_rate(lambda k: watched_t(looks, k - 1), 1000, looks, rng)
    fixed = _stop_rate(lambda k: stats.t.ppf(0.975, k - 1), 1000, looks, np.random.default_rng(7))
    assert watched <= 0.05, watched
    assert fixed > 0.12, fixed


# -- on the game itself (slow) --------------------------------------------------------------------
@pytest.mark.slow
def test_adjusted_and_plain_agree_on_a_million_games(tmp_path):
    """The seat adjustment moves no card's expected effect: on a 1,000,000-game 5-player run the
    adjusted and plain contrasts of every card differ by no more than their difference's own
    sampling error allows (|z| < 4 over 43 cards, jackknifed), and the mean difference is ~0;
    the adjusted intervals are the narrower."""
    from simcell import api
    from simcell.reports.card_table import card_sums, card_table
    from simcell.reports.data import RunData

    config = tmp_path / "c.toml"
    config.write_text('[run]\nplayers = 5\ngames = 1_000_000\nseed = 515\n\n[[field]]\nname = "planner"\n'
                      'policy = "planner"\n\n[report]\nrungs = []\n')
    played = api.play(config, out=tmp_path / "run", quiet=True, report=False)
    run = RunData(played.root)
    sums = card_sums(run, run.segments[0])
    cards = card_table(run)
    ids, types = cards["id"].to_numpy(), cards["type"].to_numpy()
    plain, adjusted = cs.Numerators.plain(sums.opening[..., 0]), sums.numerators(0)
    k = sums.dealt.shape[0]
    total_d, left_d = sums.dealt.sum(0), sums.dealt.sum(0)[None] - sums.dealt
    diff = (plain.total - adjusted.total)[ids] / total_d[ids]
    left = (plain.left - adjusted.left)[:, ids] / left_d[:, ids]
    se = np.sqrt((k - 1) / k * ((left - left.mean(0)) ** 2).sum(0))
    z = diff / se
    assert np.abs(z).max() < 4.0, np.round(z, 2)
    assert abs(z.mean()) < 3 / np.sqrt(len(z))
    a = cs.card_effects(adjusted, sums.dealt, ids, types)
    p = cs.card_effects(plain, sums.dealt, ids, types)
    assert np.median((p.contrast_se / a.contrast_se) ** 2) > 1.3


@pytest.mark.slow
def test_planted_effects_are_covered_at_the_nominal_rate(tmp_path):
    """The planted deck of tests/test_cards.py (an enzyme +3 HP, one +3 ATP, two clones) over 40
    replicates on independent seeds: each replicate's adjusted 95% interval of those four cards'
    contrasts covers the mean over the replicates (the truth to within its own small error) at
    least 94% of the time (152 of 160 intervals)."""
    from tests.test_cards import CLONE_A, CLONE_B, JUNK, PLANTED, replicate, uniform_deck

    deck = uniform_deck(tmp_path, planted=True)
    rows = []
    for r in range(40):
        _, t = replicate(tmp_path, deck, 9100 + r)
        rows.append(t.set_index("card").loc[[PLANTED, JUNK, CLONE_A, CLONE_B],
                                            ["contrast_pp", "contrast_pp_low", "contrast_pp_high"]])
    table = pd.concat(rows, keys=range(40), names=["rep", "card"])
    truth = table.groupby("card")["contrast_pp"].mean()
    hit = (table["contrast_pp_low"] <= table.index.get_level_values("card").map(truth)) & \
          (table.index.get_level_values("card").map(truth) <= table["contrast_pp_high"])
    assert hit.mean() >= 0.94, (hit.mean(), truth)


def _rung_verdicts(tmp_path: Path, name: str, rung_field: str, seeds: tuple[int, int]) -> pd.DataFrame:
    """A 2-player planner run and, as its second rung, `rung_field` (a [[field]] table) played
    on `seeds[1]`: the verdicts across skill reports/across_skill.rows gives the pair."""
    import json

    from simcell import api
    from simcell.reports.across_skill import rows
    from simcell.reports.data import RunData

    body = '[run]\nplayers = 2\ngames = 40_000\nseed = {seed}\n\n{field}\n[report]\nrungs = []\n'
    planner = '[[field]]\nname = "planner"\npolicy = "planner"\n'
    run_cfg, rung_cfg = tmp_path / f"{name}-run.toml", tmp_path / f"{name}-rung.toml"
    run_cfg.write_text(body.format(seed=seeds[0], field=planner))
    rung_cfg.write_text(body.format(seed=seeds[1], field=rung_field))
    root = api.play(run_cfg, out=tmp_path / name, quiet=True, rungs=False).root
    api.play(rung_cfg, out=root / "rungs" / "other", quiet=True, rungs=False, report=False)
    (root / "rungs" / "rungs.json").write_text(json.dumps({"field": "planner", "not_played": [], "rungs": [
        {"rung": "planner", "run": ".", "players": [2], "games": 40_000},
        {"rung": "other", "run": "rungs/other", "players": [2], "games": 40_000, "seconds": 1.0}]}))
    df, _ = rows(RunData(root))
    return df


@pytest.mark.slow
def test_an_aa_rung_finds_no_skill_dependence_and_a_misvaluing_rung_is_found(tmp_path):
    """A/A: the planner against the planner on other deals, as two rungs: no verdict is marked
    skill-dependent beyond the nominal rate (at most 1 of every figure over three replicates).
    Planted: a rung that never values one card a planner flags far above its type (favour 0)
    is marked skill-dependent on that card."""
    from simcell.reports.across_skill import SKILL_DEPENDENT

    planner = '[[field]]\nname = "planner"\npolicy = "planner"\n'
    dependent = total = 0
    for r in range(3):
        df = _rung_verdicts(tmp_path, f"aa{r}", planner, (700 + r, 800 + r))
        dependent += int((df["across_skill"] == SKILL_DEPENDENT).sum())
        total += len(df)
    assert dependent <= max(1, round(0.05 * total)), (dependent, total)
    base = _rung_verdicts(tmp_path, "base", planner, (900, 901))
    strong = base[base["figure"].str.endswith("against its type, pp")
                  & (base["planner_verdict"] == "out of band (+)")]
    assert len(strong), base[["figure", "planner_verdict"]]
    card = strong.sort_values("planner_value").iloc[-1]["figure"].removesuffix(" against its type, pp")
    misvalued = planner + f'\n[field.params.planner]\nfavour_card = "{card}"\nfavour = 0.0\n'
    df = _rung_verdicts(tmp_path, "planted", misvalued, (900, 901))
    row = df.set_index("figure").loc[f"{card} against its type, pp"]
    assert row["across_skill"] == SKILL_DEPENDENT, row
