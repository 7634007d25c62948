"""analysis/scaling.py's reading of a sweep's noise, against its definitions over generated sweeps and at
its edges from both sides: the scatter is the robust scale (median / 0.6745) of the log means' second
differences over sqrt(6), read off at least 5 of them (7 points with a positive mean; 6 give none); the
tolerance is a Bonferroni-shared Student t on the pooled (root mean square) errors, at least MIN_DROP, and
none where any point's error is unknown or infinite, or with fewer than two points."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from iolab.analysis.scaling import MIN_DROP, SWEEP_ALARM, SweepLevel, sweep_scatter, sweep_tolerance
from iolab.analysis.student_t import t_quantile

MAD_SCALE = statistics.NormalDist().inv_cdf(0.75)  # 0.6745: a normal's median absolute deviation


def _levels(rng: random.Random, count: int) -> list[SweepLevel]:
    return [
        SweepLevel(
            2**i, rng.uniform(1e6, 1e9), rng.choice([0.002, 0.01, 0.1]) * rng.random(), rng.choice([1.0, 2.0, 200.0])
        )
        for i in range(count)
    ]


def test_the_scatter_needs_five_second_differences_of_positive_means_and_is_their_robust_scale():
    rng = random.Random(41)
    for count in range(2, 14):
        levels = _levels(rng, count)
        logs = [math.log(level.mean) for level in levels]
        second = [abs(a - 2 * b + c) for a, b, c in zip(logs, logs[1:], logs[2:], strict=False)]
        found = sweep_scatter(levels)
        if count < 7:
            assert found is None, count
        else:
            assert found[1] == len(second) == count - 2
            assert found[0] == pytest.approx(statistics.median(second) / round(MAD_SCALE, 4) / math.sqrt(6))
    seven = _levels(rng, 7)
    stalled = [*seven[:6], SweepLevel(128, 0.0, 0.1)]  # a point at 0: not a mean the log reads
    assert sweep_scatter(seven) is not None and sweep_scatter(stalled) is None
    assert sweep_scatter([*stalled, seven[0]]) is not None


def test_the_tolerance_is_a_shared_t_on_the_pooled_errors_and_at_least_min_drop():
    rng = random.Random(7)
    floors = 0
    for _ in range(60):
        levels = _levels(rng, rng.randint(2, 10))
        errors = [level.error for level in levels]
        pooled = math.sqrt(sum(e * e for e in errors) / len(errors))
        pairs = len(levels) * (len(levels) - 1) / 2
        z = t_quantile(1 - SWEEP_ALARM / pairs, max(1.0, sum(level.df for level in levels)))
        expected = max(MIN_DROP, z * pooled * math.sqrt(2))
        floors += expected == MIN_DROP
        assert sweep_tolerance(levels) == pytest.approx(expected, rel=1e-12)
    assert 0 < floors < 60  # both sides of the floor were read


def test_no_tolerance_without_every_error_or_two_points():
    good = SweepLevel(1, 1e8, 0.05, 1.0)
    assert sweep_tolerance([good]) is None and sweep_tolerance([]) is None
    assert sweep_tolerance([good, good]) is not None
    for bad in (None, math.inf):
        assert sweep_tolerance([good, SweepLevel(2, 1e8, bad)]) is None
    # summed degrees of freedom below 1 count as 1
    thin = [SweepLevel(1, 1e8, 0.05, 0.25), SweepLevel(2, 1e8, 0.05, 0.25)]
    assert sweep_tolerance(thin) == pytest.approx(max(MIN_DROP, t_quantile(1 - SWEEP_ALARM, 1.0) * 0.05 * math.sqrt(2)))
