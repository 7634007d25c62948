"""Stability summary: sample stddev, CoV and a Student-t 95% CI."""

from __future__ import annotations

import math

import pytest

from iolab.analysis.stability import summarize, t975


def test_sample_stddev_cov_and_t_interval():
    s = summarize([10.0, 12.0, 14.0])
    assert s.n == 3 and s.mean == 12.0
    assert s.stddev == pytest.approx(2.0)  # n-1; the population stddev would be 1.633
    assert s.cov == pytest.approx(2.0 / 12.0)
    half = 4.302653 * 2.0 / math.sqrt(3)
    assert (s.ci95_low, s.ci95_high) == (pytest.approx(12.0 - half), pytest.approx(12.0 + half))


def test_single_value_has_no_spread():
    s = summarize([7.0])
    assert (s.n, s.mean, s.stddev, s.cov, s.ci95_low) == (1, 7.0, None, None, None)


def test_zero_mean_has_no_cov():
    assert summarize([-1.0, 1.0]).cov is None


@pytest.mark.parametrize(
    "df, expected", [(1, 12.706), (4, 2.776), (35, 2.030), (50, 2.009), (121, 1.980), (1000, 1.962)]
)
def test_t_quantiles_match_tables(df, expected):
    assert t975(df) == pytest.approx(expected, abs=0.002)


def test_no_values_is_an_error():
    with pytest.raises(ValueError):
        summarize([])
