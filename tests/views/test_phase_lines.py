"""A run page's line for each kind of unmeasured phase: how often it ran (from twice on), "before points" when
every time was before a point, how long in all, and how it ended: "ok", or each problem with how many times
it happened (from twice on). `views.run.phase_facts` over phases made here."""

from __future__ import annotations

import pytest

from iolab.models import PhaseRecord
from iolab.views.run import phase_facts


def _drops(outcomes: list[str], points: list[int | None]) -> list[PhaseRecord]:
    return [
        PhaseRecord("cache drop", "page cache", float(i), 0.25, outcome, point_id=point)
        for i, (outcome, point) in enumerate(zip(outcomes, points, strict=True))
    ]


@pytest.mark.parametrize(
    ("outcomes", "points", "line"),
    [
        (["ok"], [1], "page cache: 0.2 s, ok"),
        (["ok", "ok"], [1, 2], "page cache (before points): 2 times, 0.5 s, ok"),
        (["ok", "ok"], [None, 2], "page cache: 2 times, 0.5 s, ok"),
        (["ok", "ok", "ok"], [None, None, None], "page cache: 3 times, 0.8 s, ok"),
        (["denied"], [1], "page cache: 0.2 s, denied"),
        (["denied", "ok", "denied"], [1, 2, 3], "page cache (before points): 3 times, 0.8 s, denied (2x)"),
        (
            ["denied", "busy", "denied", "busy", "busy"],
            [1, 2, 3, 4, 5],
            "page cache (before points): 5 times, 1.2 s, denied (2x); busy (3x)",
        ),
    ],
)
def test_a_phase_line_says_how_often_when_how_long_and_each_problems_count(outcomes, points, line):
    assert phase_facts(_drops(outcomes, points)) == [("phase: cache drop", line)]


def test_each_kind_and_subject_has_its_own_line_in_the_order_they_first_happened():
    phases = [PhaseRecord("fill", "/x/s (1 GiB)", 0.0, 3.25)]
    phases += _drops(["ok", "ok"], [1, 2])
    phases += [PhaseRecord("fill", "/y/s (1 GiB)", 9.0, 1.0, "no space")]
    assert phase_facts(phases) == [
        ("phase: fill", "/x/s (1 GiB): 3.2 s, ok"),
        ("phase: cache drop", "page cache (before points): 2 times, 0.5 s, ok"),
        ("phase: fill", "/y/s (1 GiB): 1.0 s, no space"),
    ]
