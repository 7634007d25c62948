"""imports/sessions.py: a file joins a sitting of its tool when it starts at most `gap` after the sitting's end,
or ends at most `gap` before its start, exactly `gap` included, a hair beyond excluded, from either side; the
default gap is five minutes (a sweep's invocations follow within seconds; a quarter-hourly series is apart)."""

from __future__ import annotations

import pytest

from iolab.imports.sessions import SESSION_GAP, Sessions, Span

GAP = 300.0


@pytest.mark.parametrize(
    ("later", "joins"),
    [
        (Span(1000 + GAP, 1100 + GAP), True),  # starts exactly a gap after the end
        (Span(1000 + GAP + 0.001, 1100 + GAP), False),
        (Span(500 - GAP - 50, 500 - GAP), True),  # ends exactly a gap before the start
        (Span(500 - GAP - 50, 500 - GAP - 0.001), False),
        (Span(600, 700), True),  # inside
    ],
)
def test_a_file_joins_a_sitting_within_the_gap_either_side_and_not_beyond(later, joins):
    sessions = Sessions(GAP)
    assert sessions.sitting("fio", Span(500, 1000)) == 0
    assert sessions.sitting("fio", later) == (0 if joins else 1)
    assert sessions.sitting("ior", Span(600, 700)) == (1 if joins else 2)  # another tool's file: a sitting apart
    assert sessions.sitting("fio", None) is None


def test_the_default_gap_is_five_minutes():
    assert Sessions().gap == SESSION_GAP == 300.0


def test_a_sitting_grows_to_hold_each_file_it_takes():
    sessions = Sessions(GAP)
    sessions.sitting("fio", Span(1000, 1010))
    sessions.sitting("fio", Span(1200, 1300))
    sessions.sitting("fio", Span(800, 900))
    assert sessions.spans == {("fio", 0): Span(800, 1300)}
    assert sessions.sitting("fio", Span(1300 + GAP, 1700)) == 0 and sessions.spans[("fio", 0)] == Span(800, 1700)
