"""Block-queue and file-system rules with each part of their trigger made false alone and their thresholds
bracketed (issue 41: `bench/mutation.py` found `and`/`or` turned round in these rules held by no fast test:
a rotational disk that is not NVMe, a buffered job that is not a sequential reader, a RAM-backed job whose
path a target already named, a mount with discard, a target's mount among block-backed ones). Findings are
read whole."""

from __future__ import annotations

import pytest

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context, JobView
from iolab.models import DirectionResult, Finding, Result, Severity, Snapshot
from iolab.models.snapshot import BlockDevice, FileSystem, TargetInfo


def _run(rule_id: str, snapshot: Snapshot, jobs: list[JobView] | None = None) -> list[Finding]:
    return evaluate(Context(snapshot=snapshot, jobs=jobs or []), [r for r in all_rules() if r.id == rule_id])


def _job(rw: str = "read", direct: bool = False, iops: float = 1e4, **options: str) -> JobView:
    result = Result({"read": DirectionResult("read", 4e8, iops, 10**6, 10**10, 10_000)}, 5.0, 5.0, 1, "fio-3.33")
    given = {"rw": rw, "direct": "1" if direct else "0", "filename": "/dev/sdb", **options}
    return JobView(f"{rw}-{int(direct)}", given, given["filename"], "block", result=result)


def _disk(name: str = "sdb", rotational: bool | None = False, holders: list[str] | None = None, **queue: str):
    return BlockDevice(
        name,
        rotational=rotational,
        nvme_controller="nvme0" if name.startswith("nvme") else None,
        host_settings=dict(queue),
        holders=holders or [],
    )


def _snap(*devices: BlockDevice) -> Snapshot:
    return Snapshot(devices=list(devices))


# --- block.py -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("device", "scheduler", "iops", "level"),
    [
        ("sdb", "bfq", 1e4, Severity.WARNING),  # bfq on a flash disk: high
        ("sdb", "kyber", 1e4, Severity.INFO),
        ("sdb", "mq-deadline", 1e6, None),  # mq-deadline is in the way only on NVMe
        ("nvme0n1", "mq-deadline", 300_000, Severity.INFO),  # and then more so above 300k IOPS
        ("nvme0n1", "mq-deadline", 300_001, Severity.WARNING),
        ("nvme0n1", "none", 1e6, None),
    ],
)
def test_each_scheduler_is_judged_by_the_device_it_runs_on(device, scheduler, iops, level):
    found = _run("BLK-SCHED", _snap(_disk(device, scheduler=scheduler)), [_job(iops=iops, filename=f"/dev/{device}")])
    assert [f.severity for f in found] == ([level] if level else [])
    if level:
        assert (found[0].title, found[0].subject) == (f"{device} uses the {scheduler} scheduler", device)
        assert found[0].evidence == {"scheduler": scheduler, "rotational": "False"}


def test_a_spinning_disk_is_not_judged_by_the_flash_rules_and_an_unread_setting_says_so():
    spinning = _disk("sda", rotational=True, scheduler="bfq", wbt_lat_usec="75000")
    assert _run("BLK-SCHED", _snap(spinning)) == [] and _run("BLK-WBT", _snap(spinning)) == []
    unknown = _disk("sdb", rotational=None, scheduler="bfq")  # a disk that does not say: not flash
    assert _run("BLK-SCHED", _snap(unknown)) == []
    (blind,) = _run("BLK-SCHED", _snap(_disk("nvme0n1", rotational=None)))
    assert blind.severity is Severity.NOT_EVALUATED and blind.subject == "nvme0n1"
    (blind,) = _run("BLK-WBT", _snap(_disk("sdb")))
    assert blind.severity is Severity.NOT_EVALUATED


def test_writeback_throttling_is_information_only_when_every_job_is_direct_and_nothing_sits_above():
    on = _disk("sdb", wbt_lat_usec="2000")
    (found,) = _run("BLK-WBT", _snap(on))  # no jobs: whoever writes may be buffered
    assert (found.title, found.severity) == ("sdb has writeback throttling on (2000 us target)", Severity.WARNING)
    assert found.evidence == {"wbt_lat_usec": "2000", "holders": "(none)"}
    assert _run("BLK-WBT", _snap(on), [_job(direct=True)])[0].severity is Severity.INFO
    assert _run("BLK-WBT", _snap(on), [_job(direct=True), _job()])[0].severity is Severity.WARNING
    held = _disk("sdb", wbt_lat_usec="2000", holders=["dm-0", "md0"])
    (under,) = _run("BLK-WBT", _snap(held), [_job(direct=True)])
    assert under.severity is Severity.WARNING and under.evidence["holders"] == "dm-0,md0"
    assert _run("BLK-WBT", _snap(_disk("sdb", wbt_lat_usec="0"))) == []


@pytest.mark.parametrize(
    ("jobs", "level"),
    [
        ([], Severity.INFO),  # no jobs to say who reads
        ([_job("read")], Severity.WARNING),  # a buffered sequential reader
        ([_job("read", direct=True)], None),
        ([_job("randread")], None),  # buffered, reading, but random
        ([_job("write")], None),  # buffered, sequential, but writing
        ([_job("randread"), _job("read")], Severity.WARNING),
    ],
)
def test_small_read_ahead_matters_to_a_buffered_sequential_reader(jobs, level):
    found = _run("BLK-READAHEAD", _snap(_disk("sdb", read_ahead_kb="128")), jobs)
    assert [f.severity for f in found] == ([level] if level else [])
    if level:
        assert (found[0].title, found[0].evidence) == ("sdb reads ahead only 128 KiB", {"read_ahead_kb": "128"})
    assert _run("BLK-READAHEAD", _snap(_disk("sdb", read_ahead_kb="129")), jobs) == []


def test_only_an_nvme_namespace_saying_it_spins_is_misreported():
    (found,) = _run("BLK-ROTATIONAL-MISREPORT", _snap(_disk("nvme0n1", rotational=True)))
    assert (found.title, found.subject, found.evidence) == (
        "nvme0n1 (NVMe) reports rotational=1",
        "nvme0n1",
        {"rotational": "1"},
    )
    assert _run("BLK-ROTATIONAL-MISREPORT", _snap(_disk("sda", rotational=True))) == []
    assert _run("BLK-ROTATIONAL-MISREPORT", _snap(_disk("nvme0n1", rotational=False))) == []


@pytest.mark.parametrize(("depth", "jobs", "flagged"), [("16", "4", False), ("17", "4", True), ("64", "1", False)])
def test_a_request_pool_smaller_than_the_ios_offered_is_named(depth, jobs, flagged):
    device = _disk("sdb", scheduler="mq-deadline", nr_requests="64")
    snap = Snapshot(devices=[device], targets=[TargetInfo("/dev/sdb", device="sdb", is_block_device=True)])
    found = _run("BLK-NR-REQUESTS", snap, [_job(iodepth=depth, numjobs=jobs)])
    assert bool(found) is flagged
    if flagged:
        offered = int(depth) * int(jobs)
        assert found[0].title == f"read-0 offers {offered} I/Os to sdb, whose pool holds 64"
        assert found[0].evidence == {"offered": str(offered), "nr_requests": "64"}
    without = _disk("sdb", scheduler="none", nr_requests="64")
    snap = Snapshot(devices=[without], targets=[TargetInfo("/dev/sdb", device="sdb", is_block_device=True)])
    assert _run("BLK-NR-REQUESTS", snap, [_job(iodepth="128")]) == []


# --- fs.py ----------------------------------------------------------------------------------------------------

GB = 10**9


def _fs(mount: str, mm: str = "8:17", options: list[str] | None = None, used: int | None = None) -> FileSystem:
    size = 100 * GB if used is not None else None
    free = size - used if size is not None and used is not None else None
    return FileSystem(mount, "ext4", "/dev/sdb1", mm, options or ["rw"], size, used, free)


def test_the_fs_rules_judge_the_targets_mounts_else_every_block_backed_one():
    data, other, net = (
        _fs("/data", used=80 * GB),
        _fs("/other", "8:33", used=90 * GB),
        _fs("/net", "0:55", used=95 * GB),
    )
    every = Snapshot(filesystems=[data, other, net])
    assert [f.subject for f in _run("FS-FULL", every)] == ["/data", "/other"]
    aimed = Snapshot(filesystems=[data, other, net], targets=[TargetInfo("/net/f", mount_point="/net")])
    assert [f.subject for f in _run("FS-FULL", aimed)] == ["/net"]


def test_a_file_system_is_full_from_75_percent_and_unknown_fullness_says_so():
    (found,) = _run("FS-FULL", Snapshot(filesystems=[_fs("/data", used=75 * GB)]))
    assert (found.title, found.subject) == ("/data is 75% full", "/data")
    assert found.evidence == {"used": "75.0%", "size": "100.0 GB", "available": "25.0 GB"}
    assert _run("FS-FULL", Snapshot(filesystems=[_fs("/data", used=75 * GB - 1)])) == []
    (blind,) = _run("FS-FULL", Snapshot(filesystems=[_fs("/data")]))
    assert blind.severity is Severity.NOT_EVALUATED and blind.subject == "/data"


@pytest.mark.parametrize(("option", "flagged"), [("discard", True), ("discard=async", True), ("nodiscard", False)])
def test_online_discard_is_named_by_its_option(option, flagged):
    found = _run("FS-DISCARD-ONLINE", Snapshot(filesystems=[_fs("/data", options=["rw", option, "rw"])]))
    assert bool(found) is flagged
    if flagged:
        assert (found[0].title, found[0].evidence) == (f"/data is mounted with {option}", {"options": f"rw,{option}"})


def _trim(fstrim: str | None, rotational: bool | None = False, discard: int = 2**31, **fs: object) -> list[Finding]:
    mount = FileSystem("/data", "xfs", "/dev/sdb1", "8:17", list(fs.get("options", ["rw"])))  # type: ignore[call-overload]
    name, mm = str(fs.get("name", "sdb1")), str(fs.get("mm", "8:17"))
    device = BlockDevice(name, major_minor=mm, rotational=rotational, discard_max_bytes=discard)
    return _run("FS-NO-TRIM", Snapshot(filesystems=[mount], devices=[device], fstrim_timer=fstrim))


def test_an_ssd_neither_mounted_with_discard_nor_trimmed_by_the_timer_is_named():
    (found,) = _trim("disabled")
    assert (found.title, found.subject) == ("/data on SSD sdb1 is not trimmed (fstrim.timer disabled)", "/data")
    assert found.evidence == {"device": "sdb1", "discard_max_bytes": str(2**31), "fstrim.timer": "disabled"}
    assert [f.title for f in _trim("absent", mm="8:99")] == [
        "/data on SSD sdb1 is not trimmed (fstrim.timer absent)"  # found by its source, not its numbers
    ]
    assert _trim("enabled") == [] and _trim("disabled", options=["rw", "discard"]) == []
    assert _trim("disabled", rotational=True) == [] and _trim("disabled", rotational=None) == []
    assert _trim("disabled", discard=0) == [] and _trim("disabled", name="sdc", mm="8:33") == []
    (blind,) = _trim(None)
    assert blind.severity is Severity.NOT_EVALUATED


def test_a_target_or_a_job_in_ram_is_named_once_and_a_job_on_disk_not_at_all():
    in_ram = TargetInfo("/dev/shm/f", mount_point="/dev/shm", fs_type="tmpfs")
    loop = TargetInfo("/dev/loop0", device="loop0", is_block_device=True, ram_backed=True)
    on_disk = TargetInfo("/data/f", mount_point="/data", fs_type="ext4", device="sdb")
    found = _run("FS-TARGET-IN-RAM", Snapshot(targets=[in_ram, loop, on_disk]))
    assert sorted((f.title, f.subject, f.severity) for f in found) == [
        ("/dev/loop0 is on loop0, which keeps its data in RAM", "/dev/loop0", Severity.CRITICAL),
        ("/dev/shm/f is on tmpfs, which keeps its data in RAM", "/dev/shm/f", Severity.CRITICAL),
    ]
    assert next(f for f in found if f.subject == "/dev/shm/f").evidence == {
        "mount": "/dev/shm",
        "fs": "tmpfs",
        "device": "None",
    }

    def job(path: str, ram: bool) -> JobView:
        return JobView(path, {"rw": "read", "filename": path}, path, "file", ram_backed=ram)

    jobs = [job("/dev/shm/f", True), job("/mnt/zram/g", True), job("/mnt/zram/g", True), job("/data/h", False)]
    found = _run("FS-TARGET-IN-RAM", Snapshot(targets=[in_ram]), jobs)
    assert sorted((f.title, f.subject) for f in found) == [
        ("/dev/shm/f is on tmpfs, which keeps its data in RAM", "/dev/shm/f"),  # the job on it is not named again
        ("/mnt/zram/g is RAM-backed", "/mnt/zram/g"),  # once for its two jobs; the job on disk never
    ]
    assert next(f for f in found if f.subject == "/mnt/zram/g").evidence == {"job": "/mnt/zram/g"}
