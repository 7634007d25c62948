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

from iolab.models import Finding, PointRecord, Severity
from iolab.models.result import primary_metric

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


def _by_config(members: list[PointRecord]) -> dict[tuple[int, int], tuple[float, float | None]]:
    """(iodepth, numjobs) -> (median IOPS, median mean latency in ns, None where fio gave none)."""
    values: dict[tuple[int, int], list[tuple[float, float | None]]] = defaultdict(list)
    for record in members:
        options = record.point.options
        config = (int(options.get("iodepth", "1")), int(options.get("numjobs", "1")))
        latencies = [d.latency.mean_ns for d in record.result.directions.values() if d.latency]
        values[config].append((primary_metric(record.result), statistics.mean(latencies) if latencies else None))
    out = {}
    for config, pairs in values.items():
        lats = [lat for _, lat in pairs if lat is not None]
        out[config] = (statistics.median(v for v, _ in pairs), statistics.median(lats) if len(lats) == len(pairs) else None)
    return out


def _knee(configs: dict[tuple[int, int], tuple[float, float | None]], subject: str) -> list[Finding]:
    """The knee of the one-job points, from three depths on."""
    from iolab.analysis.knee import find_knee

    single = sorted((qd, v) for (qd, jobs), v in configs.items() if jobs == 1)
    if len(single) < 3:
        return []
    latencies = [lat for _, (_, lat) in single]
    report = find_knee([qd for qd, _ in single], [iops for _, (iops, _) in single],
                       latencies if all(lat is not None for lat in latencies) else None)
    return [f for f in report.findings(subject=f"{subject}, one job") if f.severity != Severity.NOT_EVALUATED]


def _peak(configs: dict[tuple[int, int], tuple[float, float | None]], subject: str) -> Finding:
    """The best configuration measured, against the best with one job."""
    (qd, jobs), (iops, _) = max(configs.items(), key=lambda item: item[1][0])
    single = {c: v for c, v in configs.items() if c[1] == 1}
    evidence = {"configurations measured": str(len(configs)), "in flight at the peak": str(qd * jobs)}
    title = f"{subject}: peak {_iops(iops)} IOPS at QD{qd} x {jobs} job{'s' if jobs > 1 else ''}"
    if single and jobs > 1:
        (best_qd, _), (best_iops, _) = max(single.items(), key=lambda item: item[1][0])
        evidence["best with one job"] = f"{_iops(best_iops)} IOPS at QD{best_qd}"
        title += f", {iops / best_iops - 1:+.0%} over one job's best"
    by_jobs = defaultdict(list)
    for (_, n), (value, _) in configs.items():
        by_jobs[n].append(value)
    evidence["best per job count"] = ", ".join(f"{n}: {_iops(max(v))}" for n, v in sorted(by_jobs.items()))
    return Finding(
        rule_id="RES-QD-PEAK", family="results", severity=Severity.INFO, title=title, subject=subject,
        evidence=evidence,
        why="The most this workload got from the target over the depths and job counts run; where more jobs beat "
            "one job's best, one job's submission path (one CPU) was the limit, not the device.",
        fix=f"Benchmark peak throughput at iodepth={qd} numjobs={jobs}; quote latency at the knee, not at the peak.",
    )


def _iops(value: float) -> str:
    return f"{value / 1000:.0f}k" if value >= 10_000 else f"{value:.0f}"
