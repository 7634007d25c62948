"""While a run goes, each point's start line says about how much fio time is left: this point's and every later
one's (ramp plus runtime of time-based jobs), so it falls point by point to the last point's own; a run of
jobs bounded by size alone (whose time depends on the device) says nothing it cannot know."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from iolab.models import Point, Target
from iolab.models.units import duration
from iolab.report.terminal import ConsoleProgress

TARGET = Target(path="/data/f", kind="file", filename="/data/f", size_bytes=1 << 20)


def _lines(points: list[Point]) -> list[str]:
    console = Console(file=io.StringIO(), width=300, color_system=None)
    progress = ConsoleProgress(console)
    progress.run_started(1, points, [])
    for i, point in enumerate(points, start=1):
        progress.point_started(i, len(points), point)
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue().splitlines()


def _timed(runtime: str, ramp: str = "0") -> Point:
    return Point(f"p{runtime}", TARGET, {"rw": "read", "time_based": "1", "runtime": runtime, "ramp_time": ramp})


@pytest.mark.parametrize(
    ("runtimes", "ramp"),
    [(["30", "10", "5"], "0"), (["1", "1"], "2"), (["0.5"], "0"), (["60"] * 4, "5")],
)
def test_each_start_line_says_the_fio_time_left_from_that_point_on(runtimes, ramp):
    points = [_timed(r, ramp) for r in runtimes]
    head, *starts = _lines(points)
    each = [float(r) + float(ramp) for r in runtimes]
    assert head == f"Run 1: {len(points)} points, about {sum(each):.0f} s of fio time"
    for i, line in enumerate(starts):
        assert line.endswith(f", about {duration(sum(each[i:]))} left …"), line


def test_jobs_bounded_by_size_alone_say_no_time_left():
    points = [Point("sized", TARGET, {"rw": "read", "size": "1g"}) for _ in range(2)]
    _, *starts = _lines(points)
    assert all(not re.search(r"about .* left", line) for line in starts)
