"""Quantiles (type 7) and the bootstrap interval, checked against values worked by hand."""

import pytest

from citeledger.report.stats import bootstrap_median_difference, median, pooled, quantile


def test_type7_quantiles_of_four_values():
    xs = [4.0, 1.0, 3.0, 2.0]  # sorted: 1 2 3 4
    assert median(xs) == 2.5
    assert quantile(xs, 0.25) == pytest.approx(1.75)  # h = 0.75: 1 + 0.75 * (2 - 1)
    assert quantile(xs, 0.75) == pytest.approx(3.25)  # h = 2.25: 3 + 0.25 * (4 - 3)
    assert quantile(xs, 0.0) == 1.0
    assert quantile(xs, 1.0) == 4.0


def test_type7_hits_order_statistics_exactly_when_h_is_whole():
    xs = [50, 10, 40, 20, 30]
    assert quantile(xs, 0.25) == 20  # h = 1
    assert median(xs) == 30  # h = 2
    assert quantile(xs, 0.75) == 40  # h = 3


def test_degenerate_inputs():
    assert median([]) is None
    assert quantile([7.0], 0.25) == 7.0
    with pytest.raises(ValueError):
        quantile([1.0], 1.5)


def test_pooled_weighs_bytes_not_sessions():
    # 9/10 and 0/90: the mean of ratios would be 0.45, the pooled ratio is 9/100
    assert pooled([9, 0], [10, 90]) == pytest.approx(0.09)
    assert pooled([], []) is None


def test_bootstrap_of_constant_sides_is_the_exact_difference():
    ci = bootstrap_median_difference([0.5] * 3, [0.7] * 4, seed=1, resamples=500)
    assert ci.low == pytest.approx(0.2) and ci.high == pytest.approx(0.2)


def test_bootstrap_interval_bounds_and_reproducibility():
    base, new = [0.1, 0.2, 0.3], [0.5, 0.6, 0.7]
    a = bootstrap_median_difference(base, new, seed=7, resamples=2000)
    b = bootstrap_median_difference(base, new, seed=7, resamples=2000)
    assert a == b
    # every resampled median of three lies in its side's range: 0.5-0.3 .. 0.7-0.1
    assert 0.2 - 1e-12 <= a.low <= 0.4 <= a.high <= 0.6 + 1e-12
    assert (a.seed, a.resamples, a.confidence) == (7, 2000, 0.95)


def test_bootstrap_with_an_empty_side_is_none():
    assert bootstrap_median_difference([], [0.3]) is None
