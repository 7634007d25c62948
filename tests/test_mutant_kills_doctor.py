"""Doctor edges that `bench/mutation.py --whole` found no fast test holding (issue 41 item 8)."""

from __future__ import annotations

from iolab.doctor.derived import repeat_sets
from iolab.doctor.engine import diagnose
from iolab.models import DirectionResult, Point, PointRecord, Result, Target

TARGET = Target("/scratch", "directory", "/scratch/data", 1 << 30)
OPTIONS = {"rw": "read", "bs": "1m", "iodepth": "32"}


def _record(point_id: int, repeat: int, bw: float, name: str = "seq") -> PointRecord:
    result = Result(
        {"read": DirectionResult("read", bw, bw / 2**20, 100, int(bw * 10), 10_000)}, 1.0, 1.0, 1, "fio-3.33"
    )
    return PointRecord(point_id, 1, point_id, Point(name, TARGET, dict(OPTIONS), repeat=repeat), "ok", result=result)


def test_two_repeats_make_a_repeat_set_and_one_run_does_not():
    (found,) = repeat_sets([_record(1, 0, 100e6), _record(2, 1, 110e6), _record(3, 0, 50e6, "once")])
    assert found.name == "seq" and found.metric == "bw" and found.repeats == [0, 1] and found.values == [100e6, 110e6]


def point(name: str, rw: str) -> Point:
    options = {"rw": rw, "bs": "1M", "ioengine": "io_uring", "iodepth": "32", "runtime": "60", "time_based": "1"}
    return Point(name=name, target=TARGET, options=options)


def result(ddir: str, bw: float) -> Result:
    direction = DirectionResult(ddir, bw, bw / 2**20, 1000, int(bw * 60), 60_000)
    return Result({ddir: direction}, 10.0, 10.0, 1, "fio-3.33")


def test_a_finding_on_jobs_quotes_their_results_and_is_no_invariant_breach():
    """`iolab doctor` over jobs (no stored run): RES-WRITE-GT-READ quotes both bandwidths, and the quote check
    finds each quoted point's result (a check that saw none would call every quote a bug)."""
    runs = [(point("seq-read", "read"), result("read", 1.0e9)), (point("seq-write", "write"), result("write", 1.5e9))]
    findings = diagnose(None, runs)
    quoted = next(f for f in findings if f.rule_id == "RES-WRITE-GT-READ")
    assert quoted.quotes and not [f for f in findings if f.rule_id == "RES-INVARIANT"]
