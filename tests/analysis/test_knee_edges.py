"""The knee's methods at their edges, as QD-KNEE's evidence shows them ("latency elbow: QD 8", "Kneedle: QD 4"):
a latency that never climbs has no elbow (a fit of a flat latency found a slope of 1e-17 and named QD 2, which
then called a clean sweep "ill-defined"); a latency that climbs from any depth on, however gently, has its
elbow there; and a sweep whose throughput peaks at its third depth still has a Kneedle knee."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from iolab.analysis.knee import find_knee

QD = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
RISING = [10.0, 20.0, 40.0, 60.0, 70.0, 72.0, 72.0]


@pytest.mark.parametrize("level", [1.0, 9_000.0, 100_000.0, 123_456.7, 5e6, 3.3e9])
def test_a_latency_that_never_climbs_has_no_elbow(level):
    report = find_knee(QD, RISING, [level] * len(QD))
    assert report.latency_elbow_qd is None
    assert report.kneedle_qd == 8.0 and report.qd_at_fraction == 16.0  # the other methods are unchanged


@pytest.mark.parametrize(
    ("k", "base", "slope"), list(itertools.product(QD[1:-1], [2_000.0, 80_000.0], [0.001, 3.0, 2_500.0]))
)
def test_a_latency_climbing_from_any_depth_has_its_elbow_there(k, base, slope):
    latency = [base + slope * max(0.0, q - k) for q in QD]
    assert find_knee(QD, RISING, latency).latency_elbow_qd == k


def test_a_sweep_that_peaks_at_its_third_depth_has_a_kneedle_knee():
    report = find_knee([1, 2, 4, 8], [10.0, 35.0, 40.0, 30.0])
    # on (log2 QD, throughput) to the peak, normalised: QD 2 stands 1/3 above the chord from QD 1 to QD 4
    assert report.kneedle_qd == 2.0
    assert find_knee([1, 2, 4, 8], [10.0, 40.0, 35.0, 30.0]).kneedle_qd is None  # a peak at the second: no curve


def test_the_elbow_is_the_least_squares_hinge_on_noisy_latency():
    rng = np.random.default_rng(7)
    for k in QD[1:-1]:
        latency = [100_000.0 + 400.0 * max(0.0, q - k) + rng.normal(0, 20.0) for q in QD]
        assert find_knee(QD, RISING, latency).latency_elbow_qd == k
