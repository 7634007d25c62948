"""The doctor reads a point's options as fio ran them (JobOptions): direct as the job file had it, rw without its suffix."""

from __future__ import annotations

from iolab.doctor import diagnose
from iolab.doctor.rule import JobView
from iolab.models import DirectionResult, Point, Result, Target

FILE = Target(path="/data", kind="directory", filename="/data/iolab.0", size_bytes=64 * 2**30, writable=True)
TMPFS = Target(path="/dev/shm", kind="directory", filename="/dev/shm/iolab.0", size_bytes=2**30, direct=False)
TIMED = {"bs": "1M", "ioengine": "io_uring", "iodepth": "32", "runtime": "60", "time_based": "1", "ramp_time": "5"}


def result(ddir: str, bw: float) -> Result:
    direction = DirectionResult(
        ddir=ddir, bw_bytes=bw, iops=bw / 2**20, total_ios=1000, io_bytes=int(bw * 60), runtime_ms=60_000
    )
    return Result(directions={ddir: direction}, usr_cpu=10, sys_cpu=10, jobs=1, fio_version="fio-3.33")


def test_a_workload_asking_for_direct_io_on_a_file_system_that_refuses_it_ran_buffered():
    # the runner writes direct=0 where O_DIRECT is refused, whatever the workload asked: the doctor said direct
    point = Point("rr", TMPFS, {**TIMED, "rw": "randread", "direct": "1"})
    view = JobView.from_point(point, None)
    assert not view.direct and view.options["direct"] == "0"
    assert "FIO-BUFFERED" in {f.rule_id for f in diagnose(None, [(point, result("read", 1e9))])}
    assert JobView.from_point(Point("rr", FILE, {**TIMED, "rw": "randread", "buffered": "1"}), None).direct is False
    assert JobView.from_point(Point("rr", FILE, {**TIMED, "rw": "randread"}), None).direct


def test_a_read_and_a_write_of_one_suffixed_pattern_are_a_pair():
    # rw=randread:8 is randread (a new offset every 8 I/Os): the pair was never compared while rw kept its suffix
    def runs(write_rw: str) -> list[tuple[Point, Result]]:
        return [
            (Point("rr", FILE, {**TIMED, "rw": "randread:8"}), result("read", 1.0e9)),
            (Point("rw", FILE, {**TIMED, "rw": write_rw}), result("write", 1.5e9)),
        ]

    assert JobView.from_point(runs("randwrite:8")[0][0], None).rw == "randread"
    assert "RES-WRITE-GT-READ" in {f.rule_id for f in diagnose(None, runs("randwrite:8"))}
    # a different suffix is a different pattern: no pair
    assert "RES-WRITE-GT-READ" not in {f.rule_id for f in diagnose(None, runs("randwrite"))}
