"""The doctor's rule and context machinery on its own (issue 41: held only through whole rules, so the parts
a context says it has, the devices it judges through dm/md members, a shared value's cache, a finding's
why/fix/confidence defaults and the data set of shared files were each read by no fast test directly)."""

from __future__ import annotations

import pytest

from iolab.analysis.device_traffic import DeviceTraffic
from iolab.doctor.rule import Context, JobView, Rule
from iolab.models import DirectionResult, Result, Severity, Snapshot
from iolab.models.material import HostRow
from iolab.models.snapshot import BlockDevice, TargetInfo


def _rule(heuristic: bool = False, level: str = "medium") -> Rule:
    return Rule(
        "X-ONE",
        "fam",
        "t",
        level,
        "a",
        "tr",
        "the why",
        "the fix",
        "ev",
        "the source",
        "snapshot",
        lambda c, r: [],
        heuristic,
    )


def test_a_finding_carries_the_rules_words_unless_told_and_its_confidence_by_kind():
    found = _rule().finding("title", "sda", {"n": 3, "x": None})
    assert (found.rule_id, found.family, found.severity, found.evidence) == (
        "X-ONE",
        "fam",
        Severity.WARNING,
        {"n": "3", "x": "None"},
    )
    assert (found.why, found.fix, found.source, found.confidence, found.quotes) == (
        "the why",
        "the fix",
        "the source",
        1.0,
        (),
    )
    told = _rule(heuristic=True).finding("t", level="critical", why="w2", fix="")
    assert (told.severity, told.why, told.fix, told.confidence) == (Severity.CRITICAL, "w2", "", 0.7)
    assert _rule(level="low").severity is Severity.INFO and _rule(level="high").severity is Severity.WARNING
    with pytest.raises(ValueError, match="no one can read"):
        _rule().finding("rate nan MB/s", "sda")
    blind = _rule().not_evaluated("no file", "sda")
    assert (blind.title, blind.severity, blind.subject, blind.source, blind.why) == (
        "not evaluated: no file",
        Severity.NOT_EVALUATED,
        "sda",
        "the source",
        "",
    )


def _job(name: str = "j", path: str | None = "/dev/sdb", result: bool = True, **options: str) -> JobView:
    done = Result({"read": DirectionResult("read", 1e8, 1e3, 10**4, 10**9, 1000)}, 1.0, 1.0, 1, "fio-3.33")
    return JobView(name, {"rw": "read", **options}, path, "block", result=done if result else None)


def test_a_context_says_which_parts_it_has():
    assert Context().supplied() == set()
    assert Context(snapshot=Snapshot()).supplied() == {"snapshot"}
    assert Context(jobs=[_job(result=False)]).supplied() == {"jobs"}
    assert Context(jobs=[_job()]).supplied() == {"jobs", "results"}
    some = Context(hosts={"p": [HostRow(1, "a", "ok", "", 1)]}, traffic=[DeviceTraffic("p", {}, {}, ())])
    assert some.supplied() == {"hosts", "traffic"}
    assert [j.name for j in Context(jobs=[_job("a", result=False), _job("b")]).results] == ["b"]


def test_a_context_judges_its_targets_disks_and_their_members_else_every_disk_but_loop_and_zram():
    devices = [
        BlockDevice("md0", slaves=["dm-0", "sdc"]),
        BlockDevice("dm-0", slaves=["sdb"]),
        BlockDevice("sdb"),
        BlockDevice("sdc"),
        BlockDevice("sdd"),
        BlockDevice("loop0"),
        BlockDevice("zram0"),
    ]
    every = Context(snapshot=Snapshot(devices=devices))
    assert [d.name for d in every.devices()] == ["md0", "dm-0", "sdb", "sdc", "sdd"]
    aimed = Context(snapshot=Snapshot(devices=devices, targets=[TargetInfo("/data/f", device="md0")]))
    assert [d.name for d in aimed.devices()] == ["md0", "dm-0", "sdc", "sdb"]
    by_job = Context(
        snapshot=Snapshot(devices=devices, targets=[TargetInfo("/dev/sdd", device="sdd")]), jobs=[_job(path="/dev/sdd")]
    )
    assert [d.name for d in by_job.devices()] == ["sdd"] and by_job.device_of(by_job.jobs[0]).name == "sdd"  # type: ignore[union-attr]
    assert by_job.device_of(_job(path="/dev/other")) is None and by_job.device_of(_job(path=None)) is None
    assert Context().devices() == [] and Context(jobs=[_job()]).device_of(_job()) is None


def test_a_shared_value_is_computed_once_and_is_no_part_of_the_contexts_value():
    calls = []
    ctx, same = Context(), Context()
    assert ctx.shared("k", lambda: calls.append(1) or 5) == 5 and ctx.shared("k", lambda: calls.append(1) or 6) == 5
    assert calls == [1] and ctx == same  # the cache does not make two contexts of the same inputs differ
    assert "_shared" not in repr(ctx)
    with pytest.raises(TypeError):
        Context(_shared={"k": 1})  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("options", "data_set"),
    [
        ({"filename": "/dev/sdb", "size": "1g", "numjobs": "4"}, 1 << 30),  # one file shared by its jobs
        ({"filename": "/a:/b", "size": "1g", "numjobs": "4"}, 4 << 30),  # several files: each job its own
        ({"filename": "/dev/sdb", "size": "1g", "numjobs": "4", "offset_increment": "1g"}, 4 << 30),
        ({"directory": "/data", "size": "1g", "numjobs": "2"}, 2 << 30),  # a file per job in a directory
        ({"filename": "/dev/sdb", "numjobs": "2"}, None),  # no size given: unknown
    ],
)
def test_the_data_set_is_the_size_once_for_a_shared_file_else_per_job(options, data_set):
    assert JobView("j", {"rw": "read", **options}).data_set_bytes == data_set


def test_a_job_section_is_aimed_at_its_files_kind_by_the_first_its_directory_or_nothing():
    several = JobView.from_options("a", {"filename": "/dev/sdb:/data/f"})
    assert (several.target_path, several.target_kind) == ("/dev/sdb:/data/f", "block")
    assert JobView.from_options("a", {"filename": "/data/f:/dev/sdb"}).target_kind == "file"
    folder = JobView.from_options("a", {"directory": "/data"})
    assert (folder.target_path, folder.target_kind) == ("/data", "directory")
    bare = JobView.from_options("a", {"rw": "read"})
    assert (bare.target_path, bare.target_kind, bare.key) == (None, None, "a")
    assert JobView("n", {}, key="7").key == "7"
