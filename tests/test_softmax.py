"""The policies' softmax choice (policies/softmax.py): simcell's own exp is exp to within a few
ulp and drops only weights below exp(CUT); the draw follows the softmax probabilities."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from simcell.policies.softmax import CUT, SLACK, softmax_pick, softmax_weight


def _with_slack(values: np.ndarray) -> np.ndarray:
    """A copy with the SLACK entries past the values that softmax_pick may write (as
    State.workspace.values has), NaN: read as values, they would spoil every draw."""
    return np.concatenate([values, np.full(SLACK, np.nan)])


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
    assert softmax_pick(_with_slack(values), 4, 0.0, np.uint64(1)) == 1


def test_weights_written_past_n_stay_within_the_slack() -> None:
    """The weights are worked out in whole vectors, into at most SLACK - 1 entries past n: the
    entry SLACK - 1 past n, and every one after it, is never written, for any n."""
    for n in range(1, 3 * SLACK + 2):
        values = np.concatenate([np.linspace(0.0, -1.0, n), np.full(2 * SLACK, np.nan)])
        i = softmax_pick(values, n, 0.3, np.uint64(n))
        assert 0 <= i < n
        assert np.isnan(values[n + SLACK - 1:]).all(), n
        assert (values[:n] > 0.0).all()  # the weights


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
        counts[softmax_pick(_with_slack(values), len(values), temperature,
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
