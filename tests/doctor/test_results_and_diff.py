"""Result-plausibility rules on Point/Result models, and snapshot diffs, on the captured tree."""

from __future__ import annotations

import json

import pytest
from sysroots import CASES, add_nvme, copy_base, write

from iolab.doctor import diagnose
from iolab.models import DirectionResult, Point, Result, Severity, Snapshot, Target
from iolab.models.snapshot_diff import diff_snapshots
from iolab.probe import Root, take_snapshot

TARGET = Target(path="/data", kind="directory", filename="/data/iolab.0", size_bytes=64 * 2**30, writable=True)


def point(name: str, rw: str, **options: str) -> Point:
    opts = {
        "rw": rw,
        "bs": "1M",
        "ioengine": "io_uring",
        "iodepth": "32",
        "runtime": "60",
        "time_based": "1",
        "ramp_time": "5",
        **options,
    }
    return Point(name=name, target=TARGET, options=opts)


def result(ddir: str, bw: float, cpu: float = 20.0, jobs: int = 1, runtime_ms: int = 60_000) -> Result:
    direction = DirectionResult(
        ddir=ddir, bw_bytes=bw, iops=bw / 2**20, total_ios=1000, io_bytes=int(bw * 60), runtime_ms=runtime_ms
    )
    return Result(directions={ddir: direction}, usr_cpu=cpu / 2, sys_cpu=cpu / 2, jobs=jobs, fio_version="fio-3.33")


@pytest.fixture
def gen3_snapshot(tmp_path):
    tree = add_nvme(copy_base(tmp_path / "host"))
    CASES["gen3_x2"][0](tree)
    return take_snapshot(Root(tree), ["/data"])


def ids(findings, severity=None):
    return {f.rule_id for f in findings if severity is None or f.severity is severity}


def test_above_link_is_critical_and_near_ceiling_is_explained(gen3_snapshot):
    runs = [(point("seq-read", "read"), result("read", 3.0e9)), (point("seq-write", "write"), result("write", 1.8e9))]
    findings = diagnose(gen3_snapshot, runs)
    above = next(f for f in findings if f.rule_id == "RES-ABOVE-LINK")
    assert above.severity is Severity.CRITICAL and above.evidence["ceiling"] == "1.97 GB/s"
    hit = next(f for f in findings if f.rule_id == "PCIE-CEILING-HIT")
    assert "seq-write" in hit.title


def test_write_faster_than_read_and_nonmonotonic_scaling(gen3_snapshot):
    runs = [
        (point("seq-read", "read"), result("read", 1.0e9)),
        (point("seq-write", "write"), result("write", 1.5e9)),
        (point("rr-1", "randread", numjobs="1"), result("read", 0.8e9)),
        (point("rr-4", "randread", numjobs="4"), result("read", 1.2e9)),
        (point("rr-8", "randread", numjobs="8"), result("read", 1.0e9)),
    ]
    findings = diagnose(gen3_snapshot, runs)
    assert "RES-WRITE-GT-READ" in ids(findings)
    scaling = next(f for f in findings if f.rule_id == "RES-NONMONOTONIC-SCALING")
    assert scaling.evidence["numjobs"] == "4 -> 8"


def test_cpu_bound_short_and_buffered_run(gen3_snapshot):
    p = Point(
        name="buffered",
        target=Target(path="/data", kind="directory", filename="/data/f", size_bytes=2**30, direct=False),
        options={"rw": "read", "bs": "4k"},
    )
    findings = diagnose(gen3_snapshot, [(p, result("read", 5e8, cpu=97.0, runtime_ms=1500))])
    assert {"FIO-CPU-BOUND", "FIO-SHORT-RUN", "FIO-BUFFERED", "FIO-CACHE-SIZE", "FIO-SYNC-ENGINE-QD"} <= ids(findings)


def test_diagnose_without_snapshot_runs_only_job_rules():
    findings = diagnose(None, [(point("seq-read", "read", iodepth="1"), result("read", 1e9))])
    assert ids(findings) and all(f.family in ("method", "results") for f in findings)


def test_snapshot_json_round_trip(gen3_snapshot):
    again = Snapshot.from_dict(json.loads(json.dumps(gen3_snapshot.to_dict())))
    assert again == gen3_snapshot


def test_diff_lists_link_wbt_cmdline_firmware_and_fullness(tmp_path):
    before_tree = add_nvme(copy_base(tmp_path / "a"))
    after_tree = add_nvme(copy_base(tmp_path / "b"))
    CASES["gen3_x2"][0](after_tree)
    CASES["wbt_on"][0](after_tree)
    CASES["full_80"][0](after_tree)
    cmdline = (after_tree / "proc/cmdline").read_text().strip()
    write(
        after_tree, "proc/cmdline", cmdline.replace("mitigations=auto,no_guest_host,no_guest_guest", "mitigations=off")
    )
    write(after_tree, "sys/class/nvme/nvme0/firmware_rev", "5B2QGXA8")
    lines = [c.render() for c in diff_snapshots(take_snapshot(Root(before_tree)), take_snapshot(Root(after_tree)))]
    assert "nvme0n1: PCIe link 16.0 GT/s x4 -> 8.0 GT/s x2" in lines
    assert "nvme0n1: wbt_lat_usec 0 -> 2000" in lines
    assert "nvme0n1: firmware 5B2QGXA7 -> 5B2QGXA8" in lines
    assert "host: cmdline (absent) -> mitigations=off" in lines
    assert "host: cmdline mitigations=auto,no_guest_host,no_guest_guest -> (absent)" in lines
    assert "/data: used 10.0% -> 80.0%" in lines
    assert diff_snapshots(take_snapshot(Root(before_tree)), take_snapshot(Root(before_tree))) == []


def test_compare_and_history_see_only_changes_that_concern_the_targets():
    """Another user's mount filling up, or a disk no target is on, is no reason B differs from A."""
    from iolab.models.snapshot import BlockDevice, FileSystem, Snapshot, TargetInfo
    from iolab.models.snapshot_diff import scoped

    def snapshot(kernel: str, md_scheduler: str, other_scheduler: str, data_used: int, home_used: int) -> Snapshot:
        return Snapshot(
            kernel=kernel,
            devices=[
                BlockDevice("md0", scheduler=md_scheduler, slaves=["nvme0n1", "nvme1n1"]),
                BlockDevice("nvme0n1", scheduler="none"),
                BlockDevice("nvme1n1", scheduler="none"),
                BlockDevice("sda", scheduler=other_scheduler),
            ],
            filesystems=[
                FileSystem("/data", "xfs", "/dev/md0", "9:0", size_bytes=100, used_bytes=data_used),
                FileSystem("/home", "ext4", "/dev/sda1", "8:1", size_bytes=100, used_bytes=home_used),
            ],
            targets=[TargetInfo("/data/bench", device="md0", mount_point="/data", fs_type="xfs")],
        )

    a = snapshot("6.1.0", "none", "mq-deadline", 10, 10)
    b = snapshot("6.1.1", "none", "bfq", 30, 90)
    b.devices[1] = BlockDevice("nvme0n1", scheduler="mq-deadline")  # a member of the target's md array
    kept = {(c.subject, c.what) for c in scoped(diff_snapshots(a, b), a, b)}
    assert kept == {("host", "kernel"), ("nvme0n1", "scheduler"), ("/data", "used")}
    everything = {(c.subject, c.what) for c in diff_snapshots(a, b)}
    assert {("sda", "scheduler"), ("/home", "used")} <= everything  # `iolab diff-env` still shows all


def test_no_scaling_verdict_from_a_point_measured_once_with_one_logged_second():
    """Issue 33: 230 -> 201 MB/s between single 1-second samples was a warning ("noise allowed=10%")."""
    from iolab.doctor.derived import PointSeries
    from iolab.doctor.engine import evaluate
    from iolab.doctor.rule import Context, JobView

    runs = [
        (point("qd8", "read", iodepth="8"), result("read", 230e6)),
        (point("qd16", "read", iodepth="16"), result("read", 201e6)),
    ]
    jobs = [JobView.from_point(p, r) for p, r in runs]

    def seconds(name: str, mean: float, n: int) -> PointSeries:
        values = [mean * 0.5] + [mean * (1 + 0.01 * (-1) ** i) for i in range(n)] + [mean * 0.4]
        return PointSeries(name, "all jobs", [float(t) for t in range(len(values))], values)

    def scaling(series):
        return [f for f in evaluate(Context(jobs=jobs, series=series)) if f.rule_id == "RES-NONMONOTONIC-SCALING"]

    (unknown,) = scaling([seconds("other-point", 1e8, 20)])  # the run logged seconds; these points kept too few
    assert unknown.severity is Severity.NOT_EVALUATED and "too few seconds" in unknown.title
    (known,) = scaling([seconds("qd8", 230e6, 20), seconds("qd16", 201e6, 20)])  # 13% down, each known to 0.3%
    assert known.severity is Severity.WARNING
    (imported,) = scaling([])  # nothing logged at all: the 10% tolerance decides, as before
    assert imported.severity is Severity.WARNING and imported.evidence["noise allowed"] == "10%"
