"""Edges of the analysis modules that `bench/mutation.py --whole` found no fast test holding (issue 41 item 8):
each test states a behaviour at the edge a slip would move (a bound inclusive or not, a floor of 0 or 1)."""

from __future__ import annotations

import numpy as np
import pytest

from iolab.analysis.compare import compare_samples, welch_test
from iolab.analysis.device_traffic import DISK_BW, device_bytes
from iolab.analysis.history_noise import noise_scale
from iolab.analysis.invariants import HISTOGRAM_RESOLUTION, latency_is_ordered
from iolab.analysis.noise import relative_error
from iolab.models.result import LatencyStats, Sample


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


def test_a_device_s_bytes_are_each_interval_s_rate_times_its_length():
    """Readings at 0.5 s, 1.5 s and 3.5 s (intervals of 0.5, 1 and 2 s from the sampler's start) at 100, 200
    and 50 MB/s moved 50 + 200 + 100 MB; devices outside the target's are left out."""
    samples = [Sample(DISK_BW, "read", "loop0", t, v * 1e6) for t, v in ((500, 100), (1500, 200), (3500, 50))]
    samples += [Sample(DISK_BW, "read", "loop9", 1000, 1e9)]
    assert device_bytes(samples, "read", ("loop0",)) == {"loop0": pytest.approx(350e6)}
    assert set(device_bytes(samples, "read")) == {"loop0", "loop9"}
    assert device_bytes(samples, "write") == {}


def test_a_known_step_leaves_the_noise_of_the_runs_around_it_as_it_was():
    """The differences that straddle a step found so far are left out: the runs' noise is the same whether the
    level jumped there or not."""
    flat = 10.0 + np.random.default_rng(41).normal(0.0, 0.1, 30)
    stepped = flat + np.where(np.arange(30) >= 15, 100.0, 0.0)
    assert noise_scale(stepped, [15]) == pytest.approx(noise_scale(flat, [15]))
    assert 0.05 < noise_scale(stepped, [15])[0] < 0.2
