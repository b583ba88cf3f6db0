"""Card verdicts a reviewer could misread (issue 70 defect 13), on planted cards.

- One outlier must not drag its siblings: a card far stronger than the rest of its type used
  to lift the mean its siblings were measured against, naming every one of them out of band (−).
  The reference is now the biweight location of the other cards of the type (cards.type_reference).
- A card nobody wants must be named: a too-dear card handed back from the opening hand costs
  little to be dealt, so its contrast sits mid-type; it is named avoided by its keep or pick rate
  (cards.avoided).
Both fail on the code before the fix (514e2dd): there the siblings are flagged and no avoided
figure exists.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from simcell.config.load import load_default_game
from simcell.reports import cards as cs
from simcell.reports.intervals import OUT_OF_BAND
from simcell.reports.card_table import card_verdict
from simcell.reports.card_table import segment_cards
from simcell.reports.data import RunData
from simcell.runner.run import RunOptions, Runner
from tests.test_cards import BAND, uniform_deck, write_deck

K = 64  # blocks
TYPE = np.array(["protein_receptor"] * 6)


def _sums(rng, effects, games=2000, sd=0.5):
    """Per-block opening-hand sums of six cards with the given true effects (win share)."""
    den = np.full((K, len(effects)), games / K)
    num = den * (np.asarray(effects)[None, :] + rng.standard_normal((K, len(effects))) * sd / np.sqrt(games / K))
    return num, den


def test_one_outlier_does_not_move_its_siblings():
    """Five alike cards and one 20 pp stronger: the siblings' contrasts stay at 0 (the old
    mean of the others put each at −4 pp, out of band), the outlier's stays +20 pp."""
    rng = np.random.default_rng(7)
    num, den = _sums(rng, [0.2, 0, 0, 0, 0, 0], games=200_000)
    e = cs.card_effects(num, den, np.arange(6), TYPE)
    assert abs(e.contrast[0] - 0.2) < 0.01
    assert np.all(np.abs(e.contrast[1:]) < 0.005), e.contrast
    sc = cs.screen(e.contrast * 100, e.contrast_se * 100, e.df, BAND)
    assert sc.flagged[0] and not sc.flagged[1:].any()
    assert np.all((sc.sim_low[1:] > -BAND) & (sc.sim_high[1:] < BAND)), (sc.sim_low, sc.sim_high)


def test_the_reference_is_the_mean_of_cards_close_together():
    """Cards within a band of one another: the reference is the others' plain mean (as before)."""
    e = np.array([0.001, -0.002, 0.004, 0.0, -0.003, 0.002])
    ref = cs.type_reference(e, TYPE, cs.reference_scale(BAND))
    plain = (e.sum() - e) / 5
    assert np.allclose(ref, plain, atol=2e-4)


def test_the_reference_does_not_jump_where_the_other_cards_fall_into_two_groups():
    """The other cards of a type at -1.9, -0.9, +2.0 and +3.0 pp (the shipped Protein Hormone
    Receptors at 5 players): each moved by at most 0.1 pp, the reference moves by about as much.
    A fixed point iterated from their median went to -1.2 pp one way and +2.3 the other."""
    scale = cs.reference_scale(BAND)
    types = np.zeros(5, np.int64)
    a = np.array([0.0017, 0.01969, 0.03021, -0.00938, -0.01922])
    b = np.array([0.0029, 0.02082, 0.02997, -0.00926, -0.01972])
    ra, rb = cs.type_reference(a, types, scale)[0], cs.type_reference(b, types, scale)[0]
    assert abs(ra - rb) < 0.002, (ra, rb)
    # and the reference stays inside the middle of those cards
    assert -0.005 < ra < 0.01, ra


def test_contrast_intervals_cover_with_an_outlier_in_the_type():
    """Coverage of the 95% contrast intervals over 300 replicates, every card of a six-card type,
    one of them 20 pp stronger: the biweight reference keeps the jackknife right (within the
    binomial 0.25%-99.75% bounds of 1,800 intervals at 95%)."""
    rng = np.random.default_rng(11)
    truth = np.array([0.2, 0, 0, 0, 0, 0]) - np.array([0.0, 0, 0, 0, 0, 0])
    covered = []
    for _ in range(300):
        num, den = _sums(rng, [0.2, 0, 0, 0, 0, 0], games=100_000)
        e = cs.card_effects(num, den, np.arange(6), TYPE)
        q = stats.t.ppf(0.975, e.df)
        covered += list(np.abs(e.contrast - truth) <= q * e.contrast_se)
    lo, hi = stats.binom.ppf([0.0025, 0.9975], len(covered), 0.95) / len(covered)
    assert lo <= np.mean(covered) <= hi, np.mean(covered)


def test_rate_ratio_and_avoided_by_hand():
    """Keep counts by block: one card kept 5% of the times dealt among five kept 30%: ratio about
    1/6 and avoided; the others about 1 and not; a card with too few chances is never named."""
    rng = np.random.default_rng(3)
    rates = np.array([0.05, 0.3, 0.3, 0.3, 0.3, 0.3])
    den = np.full((K, 6), 50.0)
    num = rng.binomial(50, np.broadcast_to(rates, (K, 6))).astype(float)
    r = cs.rate_ratios(num, den, TYPE)
    assert abs(r.ratio[0] - 1 / 6) < 0.05 and np.all(np.abs(r.ratio[1:] - 1) < 0.1), r.ratio
    pick = cs.rate_ratios(den * 0.2, den, TYPE)  # every card bought alike
    av = cs.avoided(r, pick)
    assert av.avoided.tolist() == [True] + [False] * 5 and not av.by_pick.any()
    few = cs.rate_ratios(num[:2], den[:2], TYPE)  # 100 chances each
    assert not cs.avoided(few, cs.rate_ratios(den[:2] * 0.2, den[:2], TYPE)).avoided.any()


OUTLIER, DEAR = 17, 19  # Glucagon Receptor, Erythropoietin Receptor (protein receptors, 5 cards)
GAMES = 8000


def _planner_cards(folder, deck, seed=4242, games=None):
    config = folder / f"run-{seed}.toml"
    config.write_text(f"""
[run]
players = 3
games = {games or GAMES}
seed = {seed}

[[field]]
name = "planner"
policy = "planner"

[data]
cards = "{deck.name}"
""")
    Runner(config, RunOptions(out=folder / f"out-{seed}", workers=1)).run()
    run = RunData(folder / f"out-{seed}")
    return segment_cards(run, run.segments[0], BAND).set_index("card")


def test_no_card_avoided_where_every_card_of_a_type_is_alike(tmp_path):
    """The null: every card of a type has its type's first card's values, so every keep and
    pick ratio is 1 in truth; none of the 43 is named avoided (its simultaneous interval makes
    one false name in a run rarer than 5%), and every ratio's interval holds 1 at about the
    nominal rate."""
    c = _planner_cards(tmp_path, uniform_deck(tmp_path, planted=False), seed=515, games=6000)
    assert not c["avoided"].any(), c.loc[c["avoided"], ["name", "avoid_keep_ratio", "avoid_pick_ratio"]]
    assert (c["avoid_keep_ratio_high"].dropna() >= 1).mean() >= 0.9
    assert (c["avoid_pick_ratio_high"].dropna() >= 1).mean() >= 0.9


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """The shipped set, 3 players, planner bots: one protein receptor +8 HP (far stronger than the
    other four), one enzyme made far too dear (+6 ATP)."""
    folder = tmp_path_factory.mktemp("planted")
    game = load_default_game()
    added = {OUTLIER: {"hp": 8}, 6: {"atp": 6}}  # Hexokinase: 8 ATP
    deck = write_deck(folder / "planted.toml", [(c, c.type, c, added.get(c.id, {})) for c in game.cards])
    return _planner_cards(folder, deck)


def test_planted_outlier_leaves_its_siblings_in_place(planted):
    """The receptor +8 HP is out of band above its type; its four siblings, unchanged, are not
    named out of band (−) because of it (the old mean put them far below)."""
    c = planted.assign(verdict=card_verdict(planted, BAND))
    assert c.loc[OUTLIER, "verdict"] == OUT_OF_BAND and c.loc[OUTLIER, "contrast_pp"] > 5
    siblings = c[(c["type"] == "protein_receptor") & (c.index != OUTLIER)]
    assert not ((siblings["verdict"] == OUT_OF_BAND) & (siblings["contrast_pp"] < 0)).any(), \
        siblings[["name", "contrast_pp", "contrast_sim_low", "contrast_sim_high", "verdict"]]


def test_planted_too_dear_card_is_named_avoided(planted):
    """Hexokinase at 8 ATP is rarely kept or bought: named avoided, whatever its contrast."""
    row = planted.loc[6]
    assert row["avoided"], planted.loc[planted["type"] == "enzyme",
                                       ["name", "keep_rate", "avoid_keep_ratio", "avoid_keep_ratio_high",
                                        "pick_rate", "avoid_pick_ratio", "avoid_pick_ratio_high"]]
