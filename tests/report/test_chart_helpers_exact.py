"""The charts' pure helpers, value by value: latency ticks, the 1-2-5 ladder, where a label of a point goes,
the rows of labels along a line and the thinning of names on end, ordinals.

Why: these were held by contracts (labels inside, no overlap, ticks labelled) that a slip at an edge passed:
a tick exactly on a unit, a label exactly at the middle or the top fifth, two labels exactly `gap` apart,
names that fit only one in every k or not at all."""

from __future__ import annotations

import pytest

from iolab.report.chart_axes import beside, ladder, latency_tick
from iolab.report.chart_labels import BROWSER_FONT_ROOM, every, ordinal, rows, text_inches


@pytest.mark.parametrize(
    ("ns", "shown"),
    [(1e9, "1 s"), (2.5e9, "2.5 s"), (999_999_999.9999, "1 s"), (1e6, "1 ms"), (500_000, "500 µs"), (1e3, "1 µs"),
     (999.0, "999 ns"), (0.5, "0.5 ns"), (1234.5, "1.23 µs")],
)  # fmt: skip
def test_a_latency_tick_is_in_the_largest_unit_it_reaches(ns, shown):
    assert latency_tick(ns) == shown


@pytest.mark.parametrize(
    ("low", "high", "steps"),
    [
        (3.0, 40.0, [2.0, 5.0, 10.0, 20.0, 50.0]),
        (40.0, 3.0, [2.0, 5.0, 10.0, 20.0, 50.0]),
        (1.0, 1000.0, [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]),
        (1.0, 1001.0, [1.0, 10.0, 100.0, 1000.0, 10000.0]),
        (0.02, 0.02, [0.02]),
        (150.0, 180.0, [100.0, 200.0]),
    ],
)
def test_the_ladder_runs_1_2_5_from_the_step_below_to_the_step_above(low, high, steps):
    assert ladder(low, high) == pytest.approx(steps)


@pytest.mark.parametrize(
    ("x", "y", "log_y", "where"),
    [
        (0.0, 0.0, False, ((4, 4), "left", "bottom")),
        (5.0, 8.0, False, ((4, 4), "left", "bottom")),  # exactly the middle and the top fifth's edge: right, up
        (5.1, 8.1, False, ((-4, -4), "right", "top")),
        (10.0, 10.0, False, ((-4, -4), "right", "top")),
        (0.0, 1.0, True, ((4, 4), "left", "bottom")),  # 1 of 0.1..10 on a log axis is its middle
        (0.0, 7.0, True, ((4, -4), "left", "top")),  # 7 is past the top fifth of a log 0.1..10, not a linear 0..10
    ],
)
def test_a_point_s_label_goes_right_and_up_unless_it_would_leave_the_axes(x, y, log_y, where):
    xs, ys = [0.0, 10.0], ([0.1, 10.0] if log_y else [0.0, 10.0])
    placed = beside(x, y, xs, ys, log_y=log_y)
    assert (placed["xytext"], placed["ha"], placed["va"]) == where and placed["textcoords"] == "offset points"


def test_a_point_of_a_flat_series_is_labelled_as_the_middle():
    assert beside(3.0, 3.0, [3.0], [3.0])["xytext"] == (4, 4)


def test_labels_share_a_row_from_exactly_gap_apart_and_are_dealt_in_order_of_their_start():
    assert rows([(0.0, 1.0), (1.5, 1.0)], gap=0.5) == [0, 0]  # ends at 1.0, the next starts 0.5 after
    assert rows([(0.0, 1.0), (1.4, 1.0)], gap=0.5) == [0, 1]
    assert rows([(5.0, 1.0), (0.0, 1.0), (0.5, 1.0), (1.0, 1.0)]) == [0, 0, 1, 0]
    assert rows([]) == []


@pytest.mark.parametrize(
    ("centres", "height", "step"),
    [([], 1.0, 1), ([0.0], 1.0, 1), ([0.0, 1.0, 2.0], 1.0, 1), ([0.0, 0.5, 1.0, 1.5], 1.0, 2),
     ([0.0, 0.4, 0.8, 1.2], 1.0, 3), ([0.0, 0.0, 0.0], 1.0, 3), ([0.0, 0.1], 1.0, 2)],
)  # fmt: skip
def test_names_on_end_are_thinned_to_the_smallest_step_that_fits(centres, height, step):
    assert every(centres, height) == step


@pytest.mark.parametrize(
    ("n", "said"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (10, "10th"), (11, "11th"), (12, "12th"), (13, "13th"),
     (20, "20th"), (21, "21st"), (22, "22nd"), (101, "101st"), (111, "111th"), (112, "112th")],
)  # fmt: skip
def test_ordinals(n, said):
    assert ordinal(n) == said


def test_a_text_s_measure_has_room_for_a_wider_browser_font():
    width, height = text_inches("iodepth=32", 7.0)
    assert BROWSER_FONT_ROOM == 1.2
    assert 0.5 < width < 0.8 and 0.09 < height < 0.16  # DejaVu Sans 7 pt: about 0.55 by 0.11 in, with room
