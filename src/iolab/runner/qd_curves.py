"""The answers of a queue-depth sweep: one job's knee, and the peak over depth and jobs.

Points that differ only in `iodepth` and `numjobs` (on one target) form a
curve, whether a fixed qd-sweep or an adaptive search chose them. For each
curve: the knee of its one-job points (`iolab.analysis.knee`: QD_90, N*,
latency elbow, Kneedle) and, when more than one configuration was run, the
best one with what more jobs added. Repeats of a configuration count by
their median.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from iolab.models import Finding, PointRecord, Result, Severity
from iolab.models.result import primary_metric
from iolab.report import units

VARIED = ("iodepth", "numjobs")


def qd_curve_findings(records: Sequence[PointRecord]) -> list[Finding]:
    """Knee and peak findings for every curve over iodepth x numjobs among `records` (measured ones)."""
    curves: dict[tuple, list[PointRecord]] = defaultdict(list)
    for record in records:
        if record.result is None or record.point.target.kind == "group":
            continue
        shape = tuple(sorted((k, v) for k, v in record.point.options.items() if k not in VARIED))
        curves[(record.point.target.path, shape)].append(record)
    findings: list[Finding] = []
    for members in curves.values():
        configs = _by_config(members)
        if len(configs) >= 3:
            subject = curve_name(members[0].point.name)
            findings += _knee(configs, subject)
            findings.append(_peak(configs, subject))
    return findings


def curve_name(point_name: str) -> str:
    """The point name without its depth and job tokens (``randread-4k-qd16-j4`` -> ``randread-4k``)."""
    return re.sub(r"-(qd|j)\d+(?=-|$)", "", point_name)


@dataclass(frozen=True)
class Level:
    """One configuration's medians over its repeats."""

    iops: float
    bw_bytes: float
    latency_ns: float | None  # mean total latency; None where a repeat had none


def _by_config(members: list[PointRecord]) -> dict[tuple[int, int], Level]:
    """(iodepth, numjobs) -> its Level."""
    values: dict[tuple[int, int], list[Result]] = defaultdict(list)
    for record in members:
        options = record.point.options
        values[(int(options.get("iodepth", "1")), int(options.get("numjobs", "1")))].append(record.result)
    out = {}
    for config, results in values.items():
        latencies = [primary_metric(result, "lat_mean") for result in results]  # 0 where fio gave none
        out[config] = Level(statistics.median(primary_metric(result) for result in results),
                            statistics.median(primary_metric(result, "bw") for result in results),
                            statistics.median(latencies) if all(latencies) else None)
    return out


def _knee(configs: dict[tuple[int, int], Level], subject: str) -> list[Finding]:
    """The knee of the one-job points, from three depths on."""
    from iolab.analysis.knee import find_knee

    single = sorted((qd, level) for (qd, jobs), level in configs.items() if jobs == 1)
    if len(single) < 3:
        return []
    latencies = [level.latency_ns for _, level in single]
    report = find_knee([qd for qd, _ in single], [level.iops for _, level in single],
                       latencies if all(lat is not None for lat in latencies) else None)
    # the advice names its curve: each curve's answer is its own, never folded into another's "also"
    return [replace(f, fix=f"{subject}: {f.fix}") for f in report.findings(subject=f"{subject}, one job")
            if f.severity != Severity.NOT_EVALUATED]


def _peak(configs: dict[tuple[int, int], Level], subject: str) -> Finding:
    """The best configuration measured, against the best with one job."""
    (qd, jobs), top = max(configs.items(), key=lambda item: item[1].iops)
    evidence = {"configurations measured": str(len(configs)), "in flight at the peak": str(qd * jobs)}
    title = (f"{subject}: peak {units.iops(top.iops)} IOPS ({units.mb_per_s(top.bw_bytes)} MB/s) at QD{qd} x {jobs} "
             f"job{'s' if jobs > 1 else ''}")
    single = {c: level for c, level in configs.items() if c[1] == 1}
    if single and jobs > 1:
        (best_qd, _), best = max(single.items(), key=lambda item: item[1].iops)
        evidence["best with one job"] = f"{units.iops(best.iops)} IOPS at QD{best_qd}"
        title += f", {top.iops / best.iops - 1:+.0%} over one job's best"
    by_jobs: dict[int, list[float]] = defaultdict(list)
    for (_, n), level in configs.items():
        by_jobs[n].append(level.iops)
    evidence["best per job count"] = ", ".join(f"{n}: {units.iops(max(v))}" for n, v in sorted(by_jobs.items()))
    return Finding(
        rule_id="RES-QD-PEAK", family="results", severity=Severity.INFO, title=title, subject=subject,
        evidence=evidence,
        why="The most this workload got from the target over the depths and job counts run; where more jobs beat "
            "one job's best, one job's submission path (one CPU) was the limit, not the device.",
        fix=f"{subject}: iodepth={qd} numjobs={jobs} for peak throughput; quote latency at the knee, not at the peak.",
    )
