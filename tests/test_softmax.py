"""The policies' softmax choice (policies/softmax.py): simcell's own exp is exp to within a few
ulp and drops only weights below exp(CUT); the draw follows the softmax probabilities."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from simcell.policies.softmax import CUT, softmax_pick, softmax_weight


def test_own_exp_matches_exp_within_a_few_ulp() -> None:
    xs = np.concatenate([np.linspace(CUT, 0.0, 200_001)[1:], -np.logspace(-12, 1.6, 2_000)])
    got = np.array([softmax_weight(x) for x in xs])
    want = np.array([math.exp(x) for x in xs])
    ulps = np.abs(got - want) / (want * np.finfo(np.float64).eps)
    assert ulps.max() <= 3.0, (xs[ulps.argmax()], ulps.max())
    assert softmax_weight(0.0) == 1.0


def test_weights_below_the_cut_are_zero() -> None:
    assert softmax_weight(CUT) == 0.0
    assert softmax_weight(CUT - 1e-9) == 0.0
    assert softmax_weight(-1e300) == 0.0
    assert softmax_weight(np.nextafter(CUT, 0.0)) > 0.0


def test_temperature_zero_takes_the_first_best() -> None:
    values = np.array([0.5, 2.0, -1.0, 2.0])
    assert softmax_pick(values.copy(), 4, 0.0, np.uint64(1)) == 1


def test_draws_follow_the_softmax_probabilities() -> None:
    """Chi-square over 20,000 keyed draws (a sampler off by a few percent on one action, or
    one that ignored the temperature, fails)."""
    values = np.array([1.0, 0.9, 0.7, 0.2, -0.5, -3.0])
    temperature = 0.4
    p = np.exp((values - values.max()) / temperature)
    p /= p.sum()
    n = 20_000
    counts = np.zeros(len(values))
    for k in range(n):
        counts[softmax_pick(values.copy(), len(values), temperature,
                            np.uint64(0x9E3779B97F4A7C15 * (k + 1) % 2**64))] += 1
    expected = n * p
    keep = expected >= 5  # the last action's share is tiny: pool it with its neighbour
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(obs, exp).pvalue > 1e-4
    # and a wrong temperature is rejected by the same test
    q = np.exp((values - values.max()) / (2 * temperature))
    q = n * q / q.sum()
    assert stats.chisquare(counts, q).pvalue < 1e-6
