"""Before a history spans three weeks, a weekly cycle cannot be told from a step (issue 40, fourth round):
a weekly cycle of a few percent in 3-21 days of runs passes for steps, and `iolab history` said so only of
a daily cycle before three days. Where a change point is found and the weekly cycle is not yet known, it
now says the change point may be one."""

from __future__ import annotations

import numpy as np

from iolab.analysis.history import analyse_history
from iolab.report.wording import change_points_notes

HOUR, DAY, WEEK = 3600.0, 86400.0, 7 * 86400.0


def _weekly(days: float, amplitude: float = 0.05, seed: int = 1):
    t = 1.7e9 + HOUR * np.arange(int(days * 24))
    rng = np.random.default_rng(seed)
    return t, 1e9 * (1 + amplitude * np.sin(2 * np.pi * (t % WEEK) / WEEK) + 0.01 * rng.standard_normal(len(t)))


def test_a_weekly_cycle_under_three_weeks_is_named_beside_its_change_points():
    t, x = _weekly(10)
    judged = analyse_history(x, times=t)
    assert judged.change_points, "a 5% weekly cycle over 10 days should pass for steps"
    notes = change_points_notes(judged, True)
    assert any("may be a weekly cycle" in line and "10.0 days" in line for line in notes), notes


def test_no_weekly_note_without_a_change_point_or_once_three_weeks_are_spanned():
    t, x = _weekly(10, amplitude=0.0)
    judged = analyse_history(x, times=t)
    assert not judged.change_points
    assert not any("weekly" in line for line in change_points_notes(judged, False))
    t, x = _weekly(24)
    judged = analyse_history(x, times=t)
    assert judged.noise is not None and judged.noise.weekly.state == "removed"
    assert not any("may be a weekly cycle" in line for line in change_points_notes(judged, bool(judged.change_points)))
