"""Queue-depth knee on sweeps whose knee is known by construction."""

import math

import numpy as np
import pytest

from iolab.analysis.knee import KneeParams, find_knee

QD = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256], dtype=float)


def closed_system(n_star: float, x_max: float = 100_000.0):
    """A device with a smooth knee at n_star: X = X_max n/(n + n_star), R from Little's law."""
    x = x_max * QD / (QD + n_star)
    r_ns = QD / x * 1e9
    return x, r_ns


def test_knee_of_a_smooth_curve():
    x, r = closed_system(4.0)
    report = find_knee(QD, x, r)
    # the peak is the sweep's highest point, X(256) = 0.985 X_max; 90% of it is 0.886: X(16) = 0.8 short, X(32) = 0.889
    peak = x.max()
    expected = QD[np.argmax(x >= 0.9 * peak)]
    assert report.qd_at_fraction == expected == 32.0
    assert report.peak == pytest.approx(peak)
    assert report.n_star == pytest.approx(peak * r[0] * 1e-9)
    assert report.recommended_qd == 32.0


def test_hard_knee_methods_agree():
    x_max, r0 = 80_000.0, 100e3
    x = np.minimum(QD / (r0 * 1e-9), x_max)
    r = np.maximum(r0, QD / x_max * 1e9)
    report = find_knee(QD, x, r)
    assert report.qd_at_fraction == 8.0
    assert report.n_star == pytest.approx(8.0)
    assert report.latency_elbow_qd == 8.0
    assert report.consistent


def test_fraction_is_a_parameter_and_kept():
    x, r = closed_system(4.0)
    report = find_knee(QD, x, r, KneeParams(fraction=0.5))
    assert report.params.fraction == 0.5 and report.qd_at_fraction == 4.0


def test_throughput_only_sweep_and_falling_tail():
    x = np.array([10, 19, 35, 60, 80, 88, 90, 70, 50], dtype=float)  # collapses at high QD
    report = find_knee(QD, x)
    assert report.n_star is None and report.latency_elbow_qd is None
    assert report.qd_at_fraction == 32.0  # peak = 90; 0.9 x 90 = 81: 80 at QD 16 falls short, 88 at QD 32
    assert report.kneedle_qd is not None and report.kneedle_qd <= 64


def test_repeated_and_nan_points():
    report = find_knee([1, 1, 2, 4, 8, 8, math.nan], [10, 12, 20, 30, 31, 29, 5])
    assert report.qd == [1.0, 2.0, 4.0, 8.0] and report.throughput == [11.0, 20.0, 30.0, 30.0]


@pytest.mark.parametrize("qd, x", [([], []), ([1, 2], [5, 6]), ([1, 2, 4], [0, 0, 0])])
def test_not_evaluated(qd, x):
    report = find_knee(qd, x)
    assert not report.evaluated
