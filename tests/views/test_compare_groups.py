"""`iolab compare A B` reads each side as written: RUNS, or RUNS:KEY=VALUE for the points of RUNS that ran
with that value of a host setting or fio option (an A/B inside one run). A tag or a time window has colons
but no "=" after them, and stays a group of runs. Each side's workloads are named by what they ask of the
storage, whatever the method ("sequential read", "random read/write")."""

from __future__ import annotations

import pytest

from iolab.models import Point, Target
from iolab.views.comparison import Within, WorkloadSamples, split_group

TARGET = Target("/data", "directory", "/data/f", 1 << 30, scratch=True)


@pytest.mark.parametrize(
    ("spec", "runs", "within"),
    [
        ("12", "12", None),
        ("12:scheduler=none", "12", Within("scheduler", "none")),
        ("12-15:iodepth=32", "12-15", Within("iodepth", "32")),
        (" 7:scheduler= mq-deadline ", "7", Within("scheduler", "mq-deadline")),
        ("nightly", "nightly", None),
        ("2026-01-01T10:00..2026-01-02T10:00", "2026-01-01T10:00..2026-01-02T10:00", None),
        ("tag:nightly", "tag:nightly", None),
    ],
)
def test_a_side_is_its_runs_and_the_axis_value_its_points_are_chosen_by(spec, runs, within):
    assert split_group(spec) == (runs, within)


def test_a_within_holds_for_points_that_ran_with_its_value():
    scheduler, depth = Within("scheduler", "none"), Within("iodepth", "32")
    assert (str(scheduler), str(depth)) == ("scheduler=none", "iodepth=32")
    none = Point("p", TARGET, {"rw": "randread", "iodepth": "32"}, host_settings={"scheduler": "none"})
    deadline = Point("p", TARGET, {"rw": "randread", "iodepth": "8"}, host_settings={"scheduler": "mq-deadline"})
    assert scheduler.holds(none) and not scheduler.holds(deadline)
    assert depth.holds(none) and not depth.holds(deadline)


@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"rw": "read"}, "sequential read"),
        ({"rw": "randread"}, "random read"),
        ({"rw": "write"}, "sequential write"),
        ({"rw": "randwrite"}, "random write"),
        ({"rw": "randrw"}, "random read/write"),
        ({"rw": "rw"}, "sequential read/write"),
    ],
)
def test_a_side_names_what_it_asks_of_the_storage(options, pattern):
    side = WorkloadSamples("w", "w", "/data", "bw", [1.0], job=Point("w", TARGET, options).job)
    assert side.pattern == pattern
