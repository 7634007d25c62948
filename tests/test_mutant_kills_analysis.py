"""Edges of the analysis modules that `bench/mutation.py --whole` found no fast test holding (issue 41 item 8):
each test states a behaviour at the edge a slip would move (a bound inclusive or not, a floor of 0 or 1)."""

from __future__ import annotations

import pytest

from iolab.analysis.compare import compare_samples, welch_test
from iolab.analysis.invariants import HISTOGRAM_RESOLUTION, latency_is_ordered
from iolab.analysis.noise import relative_error
from iolab.models.result import LatencyStats


def test_two_repeats_a_side_are_enough_for_welch_and_a_verdict():
    test = welch_test(10.0, 1.0, 2, 12.0, 1.0, 2)
    assert test.df == pytest.approx(2.0) and 0.0 < test.p < 1.0
    verdict = compare_samples([100.0, 101.0], [150.0, 151.0])
    assert verdict.evaluated and verdict.p_welch is not None
    with pytest.raises(ValueError):
        welch_test(10.0, 1.0, 1, 12.0, 1.0, 2)


def test_a_mean_exactly_at_the_ceiling_its_percentiles_allow_is_in_order():
    """The mean may reach q·p_q·(1 + resolution) + (1 - q)·max exactly: fio's own figures land on it."""
    p50, top = 1000.0, 3000.0
    ceiling = 0.5 * p50 * (1 + HISTOGRAM_RESOLUTION) + 0.5 * top
    at = LatencyStats("clat", 1000, ceiling, 10.0, 900.0, top, {50.0: p50})
    assert latency_is_ordered(at) is None
    beyond = LatencyStats("clat", 1000, ceiling * 1.001, 10.0, 900.0, top, {50.0: p50})
    assert latency_is_ordered(beyond) is not None


def test_a_rate_below_one_per_second_still_has_a_relative_error():
    """A slow file operation does under one op/s: its figure is as uncertain as any, not unknowable."""
    values = [0.5 + 0.05 * ((i * 7) % 5 - 2) for i in range(40)]
    error = relative_error(values)
    assert error is not None and 0.0 < error < 0.2
    assert relative_error([0.0] * 40) is None
