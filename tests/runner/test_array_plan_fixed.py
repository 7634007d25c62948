"""An array run (`--devices`) plans fixed workloads only (runner.planning.array_plan), with fake members: a
plan's QD search and adaptive repeats are left out with a note naming them, its writing workloads skipped on
read-only drives with a note, and the plan it runs holds no open-ended part; a plan of nothing but
open-ended parts is refused. File create/stat/remove needs directories (check_metadata_targets)."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.models import Plan, Target, Workload
from iolab.models.plan import QdSearch, RepeatPolicy
from iolab.runner import planning
from iolab.runner.request import RunRequest

READ = Workload("randread", {"rw": "randread", "bs": "4k", "runtime": "5", "time_based": "1"})
WRITE = Workload("randwrite", {"rw": "randwrite", "bs": "4k", "runtime": "5", "time_based": "1"})


@pytest.fixture(autouse=True)
def members(monkeypatch):
    drives = [Target(f"/dev/sd{c}", "block", f"/dev/sd{c}", 1 << 30) for c in "xy"]
    monkeypatch.setattr(planning, "resolve_members", lambda specs, allow_write, size: drives)
    return drives


def test_an_array_run_keeps_fixed_reads_and_says_what_it_left_out(members):
    plan = Plan("p", [READ, WRITE], qd_searches=[QdSearch(READ)], repeats=RepeatPolicy(count=2, adaptive=True))
    request = RunRequest(plan="p", devices=["/dev/sdx", "/dev/sdy"], array_modes=["together"])
    fixed, targets, points, notes = planning.array_plan(request, plan)
    assert targets == {None: members}
    assert {p.name for p in points} == {"randread-together"}
    assert notes == [
        "skipped the writing workloads (writes need --allow-write)",
        "left out with --devices: adaptive queue-depth search, adaptive repeats (an array run measures fixed workloads)",
    ]
    assert fixed.qd_searches == [] and fixed.repeats is not None and not fixed.repeats.adaptive
    assert fixed.repeats.count == 2 and {p.repeat for p in points} == {0, 1}


def test_a_plan_of_reads_alone_has_nothing_to_say():
    _, _, points, notes = planning.array_plan(
        RunRequest(devices=["/dev/sdx"], array_modes=["together"]), Plan("p", [READ])
    )
    assert points and notes == []


def test_an_array_run_of_only_open_ended_parts_is_refused():
    plan = Plan("qd", [], qd_searches=[QdSearch(READ)])
    with pytest.raises(UserError, match="^--devices measures fixed workloads, and qd chooses its points while running"):
        planning.array_plan(RunRequest(devices=["/dev/sdx"]), plan)


def test_file_create_stat_remove_needs_directories():
    planning.check_metadata_targets([Target("/srv", "directory", "/srv/x", 1)])
    with pytest.raises(
        UserError, match="^/dev/sdx: the metadata preset creates, stats and removes files in a directory"
    ):
        planning.check_metadata_targets(
            [Target("/srv", "directory", "/srv/x", 1), Target("/dev/sdx", "block", "/dev/sdx", 1)]
        )
