"""Drops that recur, read as one pattern (analysis.recurring): which events are alike, whether they come at a
period, and how they stand against the run's own windows outside them (issue 40: a Kingston SSD's garbage
collection every 515 s over 3.3 h made its own tail, and none of its drops was reported)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iolab.analysis.dips import Dip
from iolab.analysis.recurring import MIN_DROPS, Pattern, alike, standing
from iolab.analysis.window_tail import poisson_at_least


def _dip(onset: float, duration: float = 2.0, mean_drop: float = 0.6, kind: str = "transient") -> Dip:
    return Dip(kind, onset, duration, mean_drop + 0.1, mean_drop, 1.0, 0.3, 0.0, 1.0, 1.0)


def test_the_largest_set_alike_in_depth_and_length_is_the_pattern():
    drops = [_dip(100.0 * k) for k in range(1, 6)]
    strays = [_dip(50.0, mean_drop=0.1), _dip(250.0, duration=40.0), _dip(330.0, kind="step")]
    found = alike(strays + drops)
    assert found is not None
    assert [d.onset_s for d in found.drops] == [100.0, 200.0, 300.0, 400.0, 500.0]


def test_fewer_drops_alike_than_a_pattern_needs_are_none():
    assert alike([_dip(100.0 * k) for k in range(MIN_DROPS - 1)]) is None
    assert alike([_dip(100.0, mean_drop=0.1), _dip(200.0, mean_drop=0.5), _dip(300.0, mean_drop=0.95)]) is None


def test_a_period_survives_a_drop_missed_but_not_scattered_intervals():
    regular = Pattern(tuple(_dip(t) for t in (1249, 1763, 2278, 2792, 3889, 4471, 4979)))
    assert regular.period_s == pytest.approx(514.5)
    scattered = Pattern(tuple(_dip(t) for t in (26, 57, 118, 135, 149, 241)))
    assert scattered.period_s is None


def test_poisson_tail_is_the_chance_of_at_least_that_many():
    assert poisson_at_least(0, 3.0) == 1.0
    assert poisson_at_least(1, 2.0) == pytest.approx(1 - math.exp(-2.0))
    assert poisson_at_least(3, 0.0) == 0.0
    assert poisson_at_least(8, 0.01) < 1e-15


def _run(seed: int, seconds: int = 2000) -> tuple[list[float], np.ndarray]:
    rng = np.random.default_rng(seed)
    return [float(t) for t in range(1, seconds + 1)], 1e8 * (1 + 0.05 * rng.standard_normal(seconds))


@pytest.mark.parametrize("seed", range(3))
def test_drops_far_past_the_run_s_own_windows_are_beyond_chance(seed):
    times, values = _run(seed)
    drops = []
    for at in range(150, 2000, 300):
        values[at : at + 2] *= 0.4
        drops.append(_dip(float(at), 2.0, 0.6))
    seen = standing(times, values, Pattern(tuple(drops)), 0.01)
    assert seen.chance is not None and seen.chance < 1e-6
    assert seen.window_s == 2.0
    assert seen.alone_depth is not None and 0.1 < seen.alone_depth < 0.6


@pytest.mark.parametrize("seed", range(3))
def test_the_run_s_own_deepest_windows_taken_as_a_pattern_are_not_beyond_chance(seed):
    """The three deepest 2 s windows of Gaussian noise, called a pattern: the tail fitted to the rest, with them
    counted as drawn from it, does not put them past the rules' 1% (the test is not circular: left out and not
    counted, they would stand beyond it)."""
    times, values = _run(seed)
    logs = np.log(values)
    means = (logs[1:] + logs[:-1]) / 2
    picked: list[int] = []
    for i in np.argsort(means):
        if all(abs(i - j) > 3 for j in picked):
            picked.append(int(i))
        if len(picked) == 3:
            break
    pattern = Pattern(tuple(_dip(float(times[i] - 1), 2.0, 0.1) for i in sorted(picked)))
    seen = standing(times, values, pattern, 0.01)
    assert seen.chance is not None and seen.chance > 0.01


def test_a_run_too_short_for_its_own_tail_says_so():
    times, values = _run(0, 120)
    values[30:32] *= 0.4
    values[60:62] *= 0.4
    values[90:92] *= 0.4
    seen = standing(times, values, Pattern(tuple(_dip(float(t), 2.0) for t in (30, 60, 90))), 0.01)
    assert seen.chance is None and seen.alone_depth is None
