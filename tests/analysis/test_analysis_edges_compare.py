"""compare's tests and the device counters at their edges (issue 41: `bench/mutation.py --whole` found these
held by no fast test): Welch's degrees of freedom when neither side spreads, the size up to which Mann-Whitney
is counted exactly, a change exactly at the noise floor, and a device's bytes summed from its first reading."""

from __future__ import annotations

import math

import pytest

from iolab.analysis.compare import CompareParams, compare_samples, mann_whitney, welch_test
from iolab.analysis.device_traffic import device_bytes, measure_traffic
from iolab.models import DirectionResult, Result, Sample


@pytest.mark.parametrize(("n_a", "n_b"), [(2, 2), (3, 5), (10, 4)])
def test_two_constant_sides_have_the_pooled_degrees_of_freedom(n_a, n_b):
    same = welch_test(1.0, 0.0, n_a, 1.0, 0.0, n_b)
    apart = welch_test(1.0, 0.0, n_a, 2.0, 0.0, n_b)
    assert (same.df, same.p, apart.df, apart.p, apart.t) == (n_a + n_b - 2, 1.0, n_a + n_b - 2, 0.0, math.inf)


@pytest.mark.parametrize(("n_a", "method"), [(100, "exact"), (101, "normal")])
def test_mann_whitney_without_ties_is_counted_exactly_up_to_2500_pairs(n_a, method):
    a = [float(v) for v in range(n_a)]
    b = [v + 0.5 for v in range(25)]
    assert mann_whitney(a, b).method == method


def test_a_change_exactly_at_the_noise_floor_is_not_beyond_it():
    """Faster only when the whole interval lies beyond the floor: constant sides make the interval one point,
    the change itself, and a floor set exactly there is not passed."""
    a, b = [100.0] * 5, [125.0] * 5
    change = compare_samples(a, b).ci_low
    assert change == pytest.approx(0.25)
    at = compare_samples(a, b, CompareParams(noise_floor=change, equivalence_margin=0.5))
    below = compare_samples(a, b, CompareParams(noise_floor=math.nextafter(change, 0.0), equivalence_margin=0.5))
    assert (at.kind, below.kind) == ("equivalent", "faster")  # within the 50% margin, not beyond the floor


def _disk(device: str, rates: list[float], ddir: str = "read") -> list[Sample]:
    return [Sample("disk.bw", ddir, device, t * 1000, rate) for t, rate in enumerate(rates, start=1)]


def test_a_devices_bytes_are_each_intervals_rate_times_its_length_from_the_first_reading():
    samples = _disk("sda", [100.0, 200.0, 50.0]) + [Sample("disk.bw", "read", "sdb", 2500, 400.0)]
    assert device_bytes(samples, "read") == {"sda": 350.0, "sdb": 1000.0}
    assert device_bytes(samples, "read", ("sdb",)) == {"sdb": 1000.0}
    assert device_bytes(samples, "write") == {}


def test_a_point_whose_telemetry_watched_no_device_has_no_traffic():
    result = Result({"read": DirectionResult("read", 1e6, 10.0, 10, 10**6, 1000)}, 1.0, 1.0, 1, "3.33")
    assert measure_traffic("p", result, []) is None
    assert measure_traffic("p", result, _disk("sda", [1e6])) is not None
    assert measure_traffic("p", result, _disk("sda", [1e6]), ("sdb",)) is None
