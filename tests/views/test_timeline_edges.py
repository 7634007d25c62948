"""The timeline's edges: a series that moved a byte a second is drawn and one that moved none is not; samples
2.5 s apart are one line and further apart a break at their midpoint.

Why: the fast timelines move megabytes a second or nothing, and their points are a second apart or many, so
the bounds of "moved data" and of a break were held by no test (`bench/mutation.py`: `v > 0` read as `v > 1`
survived)."""

from __future__ import annotations

import math

import pytest

from iolab.views.timeline import _joined, _with_gaps


@pytest.mark.parametrize(("values", "drawn"), [([0.0, 0.0], False), ([0.0, 1.0], True), ([0.0, 0.5], True)])
def test_a_series_is_drawn_when_any_second_moved_data(values, drawn):
    joined = _joined([(10.0, [1.0, 2.0], values)])
    assert (joined is not None) is drawn
    if joined is not None:
        assert joined == ([11.0, 12.0], values)


def test_points_are_laid_on_the_run_s_clock_by_their_offsets():
    assert _joined([(0.0, [1.0, 2.0], [5.0, 6.0]), (3.0, [1.0], [7.0])]) == ([1.0, 2.0, 4.0], [5.0, 6.0, 7.0])


@pytest.mark.parametrize(("gap", "broken"), [(2.5, False), (2.51, True), (1.0, False)])
def test_a_gap_longer_than_two_and_a_half_seconds_breaks_the_line_at_its_midpoint(gap, broken):
    times, values = _with_gaps([1.0, 1.0 + gap], [3.0, 4.0])
    if broken:
        assert times == [1.0, 1.0 + gap / 2, 1.0 + gap] and values[0] == 3.0 and math.isnan(values[1])
        assert values[2] == 4.0
    else:
        assert (times, values) == ([1.0, 1.0 + gap], [3.0, 4.0])
