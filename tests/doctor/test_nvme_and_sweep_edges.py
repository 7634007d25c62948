"""Doctor rules on inputs at their edges (issue 41: `bench/mutation.py --whole` finds these held by no fast
test): an NVMe namespace reached over a fabric has no SMART of ours to judge, a drive whose spare figures are
not both known is not judged on spare, and a numjobs sweep whose repeats all moved nothing is no rule failure."""

from __future__ import annotations

from iolab.doctor import diagnose
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import DirectionResult, Finding, Point, Result, Snapshot, Target
from iolab.models.finding import FAILED_RULE
from iolab.models.snapshot import BlockDevice, NvmeSmart


def _run(rule_id: str, devices: list[BlockDevice]) -> list[Finding]:
    return evaluate(Context(snapshot=Snapshot(devices=devices)), [r for r in all_rules() if r.id == rule_id])


def test_smart_is_judged_for_local_nvme_and_not_over_a_fabric():
    smart = NvmeSmart(media_errors=3, num_err_log_entries=3)
    local = BlockDevice("nvme0n1", nvme_controller="nvme0", transport="pcie", smart=smart)
    fabric = BlockDevice("nvme1n1", nvme_controller="nvme1", transport="tcp", smart=smart)
    sata = BlockDevice("sda", smart=smart)
    assert [f.subject for f in _run("NVME-MEDIA-ERRORS", [local, fabric, sata])] == ["nvme0n1"]


def test_spare_is_judged_only_with_both_the_spare_and_its_threshold():
    def spare(**values: int) -> list[Finding]:
        return _run("NVME-SPARE-LOW", [BlockDevice("nvme0n1", nvme_controller="nvme0", smart=NvmeSmart(**values))])

    assert spare(spare_thresh=10) == [] and spare(avail_spare=5) == []
    assert [f.title for f in spare(avail_spare=5, spare_thresh=10)] == ["nvme0n1 has 5% spare left (threshold 10%)"]


def test_a_sweep_whose_repeats_moved_nothing_is_no_rule_failure():
    target = Target(path="/data", kind="directory", filename="/data/f", size_bytes=1 << 30)
    runs = []
    for jobs in ("1", "4"):
        for repeat in range(2):
            options = {"rw": "randread", "bs": "4k", "numjobs": jobs, "runtime": "60", "time_based": "1"}
            direction = DirectionResult("read", 0.0, 0.0, 0, 0, 60_000)
            runs.append(
                (Point(f"rr-{jobs}", target, options, repeat=repeat), Result({"read": direction}, 1, 1, 1, "3.33"))
            )
    findings = diagnose(None, runs)
    assert not [f for f in findings if FAILED_RULE in f.title or f.rule_id == "RES-NONMONOTONIC-SCALING"]


def _iops_result(iops: float) -> Result:
    return Result(
        {"read": DirectionResult("read", iops * 4096, iops, round(iops), round(iops * 4096), 1000)}, 1, 1, 1, "3.33"
    )


def _knee(latencies: list[float | None]) -> Finding:
    from iolab.doctor.derived import Level, QdCurve

    iops = [10_000.0, 19_000.0, 30_000.0, 38_000.0, 40_000.0, 40_500.0]
    configs = {
        (2**i, 1): Level(v, v * 4096, latency, points=((str(i), _iops_result(v)),))
        for i, (v, latency) in enumerate(zip(iops, latencies, strict=True))
    }
    found = evaluate(Context(curves=[QdCurve("rr", configs)]), [r for r in all_rules() if r.id == "RES-QD-KNEE"])
    (knee,) = found
    return knee


def test_the_knee_advice_gives_latency_ratios_only_where_every_depth_has_one():
    # 90% of the 40.5k peak is first reached at QD 8 (38k, 94%), at 210 us against 100 us at QD 1
    blind = _knee([None] * 6)
    assert blind.fix == "rr: use QD 8: 94% of the peak throughput."
    assert blind.evidence["latency elbow"] == "n/a" and blind.evidence["knee"] == "QD 8"
    # a first depth that timed nothing gives no ratio (never "inf x")
    untimed_first = _knee([0.0, 105e3, 133e3, 210e3, 400e3, 790e3]).fix
    assert untimed_first.startswith("rr: use QD 8: 94% of the peak throughput.") and " latency" not in untimed_first
    timed = _knee([100e3, 105e3, 133e3, 210e3, 400e3, 790e3])
    assert timed.fix == (
        "rr: use QD 8: 94% of the peak throughput at 2.1x the QD 1 latency; the highest throughput (QD 32) costs 7.9x."
    )


def test_writes_without_their_reads_are_compared_with_nothing():
    target = Target(path="/data", kind="directory", filename="/data/f", size_bytes=1 << 30)
    options = {"rw": "write", "bs": "1m", "runtime": "60", "time_based": "1"}
    direction = DirectionResult("write", 2e9, 2e3, 120_000, 120 * 10**9, 60_000)
    findings = diagnose(None, [(Point("seq-write", target, options), Result({"write": direction}, 1, 1, 1, "3.33"))])
    assert not [f for f in findings if FAILED_RULE in f.title or f.rule_id == "RES-WRITE-GT-READ"]
