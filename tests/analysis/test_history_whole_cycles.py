"""A change point must hold between whole cycles' means of the runs with the removed profile put back
(`analysis.history._whole_cycles_fail`, issue 40, sixteenth look).

A daily (weekly) profile fitted to a few days of correlated runs carries the noise's error into every day; any
periodic profile, fitted or true, averages to the same over a whole period, so between whole periods' means it can
neither make a step nor hide one. The tuning histories below (bench/simulated_histories.py's draw, 30-199 runs,
seeds 71,000,000+) each held a false change point that was gone with the true cycles divided out and no profile
fitted (`bench/history_false_classes.py`'s "cycle profile" class)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from iolab.analysis import history
from iolab.analysis.history import _Noise, _whole_cycles_fail, analyse_history
from iolab.analysis.history_noise import DAY, Cycle

BENCH = Path(__file__).resolve().parents[2] / "bench"
HOUR = 3600.0

# (seed, the false change point's run) of the tuning set's "cycle profile" class that the element removes
PROFILE_MADE = [(71000498, 85), (71000871, 11), (71001746, 26), (71002686, 80), (71004419, 59), (71005310, 28)]


def test_a_periodic_pattern_cannot_change_the_whole_cycles_verdict():
    """Any daily pattern added to the profile (a profile fitted wrong by any amount) leaves every verdict as it was:
    between whole days' means it cancels. Six days of hourly runs, a 4% step after two and a half, and a 1.5-sd
    step drawn at random besides (kept or dropped alike)."""
    rng = np.random.default_rng(5)
    times = 1.7e9 + HOUR * np.arange(144)
    cycles = (Cycle(DAY, "removed", 6.0, 0.02), Cycle(7 * DAY, "too short", 0.9, 0.0))
    noise = _Noise(0.02, 1.0)
    for trial in range(20):
        z = 0.02 * rng.standard_normal(144)
        z[60:] -= 0.04
        z[100:] -= 0.03 * rng.uniform()
        verdicts = []
        for pattern in (np.zeros(24), 0.05 * rng.standard_normal(24)):
            found = [60, 100]
            _whole_cycles_fail(z, np.tile(pattern, 6), times, found, cycles, noise, history.ChangePointParams())
            verdicts.append(found)
        assert verdicts[0] == verdicts[1], trial


def test_a_side_shorter_than_a_period_keeps_its_change_point():
    """Fewer runs than a period on a side: the whole-cycle means cannot be read, and the point is kept."""
    times = 1.7e9 + HOUR * np.arange(100)
    z = np.zeros(100)
    found = [90]
    cycles = (Cycle(DAY, "removed", 4.2, 0.02),)
    assert not _whole_cycles_fail(
        z, np.zeros(100), times, found, cycles, _Noise(0.02, 1.0), history.ChangePointParams()
    )
    assert found == [90]


@pytest.mark.parametrize(("seed", "at"), PROFILE_MADE)
def test_the_benchs_profile_made_false_change_points_are_gone(seed, at):
    sys.path.insert(0, str(BENCH))
    import simulated_histories as sh

    h = sh.draw(seed, 199, least=30)
    found = [c.index for c in analyse_history(h.values, times=h.times).change_points]
    assert all(abs(i - at) > 3 for i in found), (found, at)
