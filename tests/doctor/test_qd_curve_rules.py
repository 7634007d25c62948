"""The answers of a queue-depth sweep, from stored records: curves grouped by shape, knee and peak rules."""

from __future__ import annotations

import random

from iolab.doctor.derived import curve_name
from iolab.doctor.engine import diagnose_run
from iolab.models import Point, PointRecord, Target, units
from iolab.models.material import RunMaterial
from iolab.models.result import DirectionResult, LatencyStats, Result

TARGET = Target(path="/dev/x", kind="block", filename="/dev/x", size_bytes=1 << 30)


def record(
    number: int, name: str, iops: float, latency_ns: float, target: Target = TARGET, **options: str
) -> PointRecord:
    latency = LatencyStats("lat", 1000, latency_ns, 0.0, latency_ns, latency_ns)
    result = Result(
        {"read": DirectionResult("read", iops * 4096, iops, round(iops), round(iops * 4096), 1000, latency)},
        10.0,
        10.0,
        int(options.get("numjobs", "1")),
        "fio-3.33",
    )
    point = Point(name, target, {"rw": "randread", "bs": "4k", **options})
    return PointRecord(number, 1, number, point, "ok", result=result)


def qd_curve_findings(records: list[PointRecord]):
    """The knee and peak findings the doctor makes of these records."""
    return [f for f in diagnose_run(RunMaterial(records=records)) if f.rule_id in ("RES-QD-KNEE", "RES-QD-PEAK")]


def sweep(iops_by_depth: dict[int, float], base: str = "rr", target: Target = TARGET, jobs: int = 1):
    return [
        record(
            i,
            f"{base}-qd{qd}" + (f"-j{jobs}" if jobs > 1 else ""),
            iops,
            1e9 * qd * jobs / iops,
            target,
            iodepth=str(qd),
            numjobs=str(jobs),
        )
        for i, (qd, iops) in enumerate(iops_by_depth.items())
    ]


def test_curve_name_drops_depth_and_job_tokens_only():
    assert curve_name("randread-4k-qd16-j4") == "randread-4k"
    assert curve_name("randread-4k-qd16") == "randread-4k"
    assert curve_name("seq-qd32x-j2file") == "seq-qd32x-j2file"  # not a token of its own


def test_a_depth_sweep_gets_its_knee_and_peak_and_more_jobs_are_weighed_against_one():
    one = sweep({1: 10_000, 2: 20_000, 4: 40_000, 8: 76_000, 16: 80_000, 32: 81_000})
    four = sweep({8: 150_000, 16: 160_000}, jobs=4)
    findings = qd_curve_findings(one + four)
    knee = [f for f in findings if f.rule_id == "RES-QD-KNEE"]
    assert len(knee) == 1 and knee[0].subject == "rr" and knee[0].title.startswith("rr: queue-depth knee at QD 8")
    assert knee[0].fix.startswith("rr: use QD 8") and knee[0].evidence["N* (X_max x R0)"] == "8.1"  # 81k x 100 µs
    peak = [f for f in findings if f.rule_id == "RES-QD-PEAK"]
    assert len(peak) == 1
    assert peak[0].title == "rr: peak 160.0k IOPS (655 MB/s) at QD16 x 4 jobs, +98% over one job's best"
    assert peak[0].evidence["best with one job"] == "81.0k IOPS at QD32"
    assert peak[0].evidence["best per job count"] == "1: 81.0k IOPS, 4: 160.0k IOPS"
    assert peak[0].evidence["in flight at the peak"] == "64"


def test_repeats_count_by_their_mean_with_its_interval_and_other_shapes_or_targets_are_other_curves():
    repeats = sweep({1: 10_000, 4: 40_000, 16: 50_000}) + sweep({16: 48_000}) + sweep({16: 52_000})
    findings = qd_curve_findings(repeats)
    (peak,) = [f for f in findings if f.rule_id == "RES-QD-PEAK"]
    assert peak.title == "rr: peak 50.0k IOPS (205 MB/s) at QD16 x 1 job"  # the mean, not the best repeat
    # the rate interval of its table row (log-normal, as every rate): not the t interval 45.0k to 55.0k
    assert peak.evidence["peak's 95% interval"] == "45.3k to 55.2k IOPS over 3 repeats"
    other = Target(path="/dev/y", kind="block", filename="/dev/y", size_bytes=1 << 30)
    split = sweep({1: 10_000, 4: 40_000}) + sweep({16: 50_000}, target=other)
    assert qd_curve_findings(split) == []  # two depths on one target, one on another: no curve of three
    mixed = sweep({1: 10_000, 4: 40_000}) + [
        record(9, "rr-qd16", 50_000, 3e5, iodepth="16", numjobs="1", rw="randwrite")
    ]
    assert qd_curve_findings(mixed) == []


def test_each_curve_keeps_its_own_answer_where_advice_alike_is_said_once():
    from rich.console import Console

    from iolab.report.findings import render_findings

    other = Target(path="/dev/y", kind="block", filename="/dev/y", size_bytes=1 << 30)
    findings = qd_curve_findings(
        sweep({1: 10_000, 4: 40_000, 16: 50_000}) + sweep({1: 1_000, 4: 3_000, 16: 3_100}, base="seq", target=other)
    )
    console = Console(width=200, record=True)
    render_findings(findings, console)
    text = console.export_text()
    assert "rr: peak 50.0k IOPS (205 MB/s) at QD16" in text and "seq: peak 3,100 IOPS (12.7 MB/s) at QD16" in text
    assert "also:" not in text


def test_the_knee_and_its_peak_are_points_of_the_table_they_sit_under():
    """The issue's cases: "use QD 8: 100% of the plateau ... plateau=180.0k IOPS" while QD 64 gave 305k, and
    "use QD 2: 117% of the plateau": a median of the top three was no point of the table."""
    lucky = sweep({1: 40_000, 2: 90_000, 4: 150_000, 8: 180_000, 16: 176_000, 32: 170_000, 64: 305_000})
    (knee,) = [f for f in qd_curve_findings(lucky) if f.rule_id == "RES-QD-KNEE"]
    assert knee.evidence["peak"] == "305.0k IOPS at QD 64"
    assert knee.fix.startswith("rr: use QD 64: 100% of the peak throughput")
    early = sweep({1: 50_000, 2: 117_000, 4: 100_000, 8: 100_000, 16: 98_000})
    (knee,) = [f for f in qd_curve_findings(early) if f.rule_id == "RES-QD-KNEE"]
    assert knee.evidence["peak"] == "117.0k IOPS at QD 2" and knee.fix.startswith("rr: use QD 2: 100% of the peak")


def test_no_depth_is_ever_above_the_peak_and_the_knee_is_the_first_depth_at_90_percent_of_it():
    rng = random.Random(31)
    for _ in range(200):
        depths = sorted(rng.sample([1, 2, 4, 8, 16, 32, 64, 128, 256], rng.randint(3, 9)))
        table = {qd: rng.uniform(1_000, 500_000) for qd in depths}
        (knee,) = [f for f in qd_curve_findings(sweep(table)) if f.rule_id == "RES-QD-KNEE"]
        best = max(table, key=lambda qd: table[qd])
        first = min(qd for qd in depths if table[qd] >= 0.9 * table[best])
        assert knee.evidence["peak"] == f"{units.iops(table[best])} IOPS at QD {best}"
        share = int(knee.fix.split(": ")[2].split("%")[0])
        assert knee.fix.startswith(f"rr: use QD {first}: ") and 90 <= share <= 100, (table, knee.fix)


def test_an_invalid_point_is_said_to_be_so_and_no_other_finding_uses_its_figures():
    """The issue's group_reporting case: a point whose rate breaks "rate is bytes over time" raised findings of
    its own (a 75% drop with more jobs). Here the peak's point is made invalid: RES-INVARIANT names it, and the
    peak and knee are those of the valid points."""
    points = sweep({1: 10_000, 2: 20_000, 4: 40_000, 8: 76_000, 16: 80_000, 32: 81_000})
    broken = points[-1].result
    assert broken is not None
    broken.directions["read"].bw_bytes /= 4  # the rate of one job in four
    findings = diagnose_run(RunMaterial(records=points))
    invalid = [f for f in findings if f.rule_id == "RES-INVARIANT"]  # its rate against its bytes and its IOPS
    assert invalid and {f.subject for f in invalid} == {"rr-qd32"}
    assert all(f.severity.value == "critical" for f in invalid)
    (peak,) = [f for f in findings if f.rule_id == "RES-QD-PEAK"]
    assert "80.0k IOPS" in peak.title and "QD16" in peak.title  # not the invalid QD 32 point's


def test_a_qd_sweeps_knee_and_peak_are_shown_after_a_run_not_only_counted():
    """Issue 42 item 6: the knee is the answer to a QD sweep, so the short listing after a run (and a page's
    first section) shows it and the peak beside the warnings, though both are information."""
    from rich.console import Console

    from iolab.report.findings import render_findings
    from iolab.views.headline import split_findings

    findings = qd_curve_findings(sweep({1: 10_000, 4: 40_000, 16: 50_000}))
    console = Console(width=200, record=True)
    render_findings(findings, console, verbose=False)
    text = console.export_text()
    assert "queue-depth knee at QD" in text and "rr: peak 50.0k IOPS" in text, text
    left_out = text.split("not listed:", 1)[1] if "not listed:" in text else ""
    assert "RES-QD-KNEE" not in left_out and "RES-QD-PEAK" not in left_out
    shown, rest = split_findings(findings)
    assert {f.rule_id for f in shown} >= {"RES-QD-KNEE", "RES-QD-PEAK"}
    assert not {f.rule_id for f in rest} & {"RES-QD-KNEE", "RES-QD-PEAK"}
