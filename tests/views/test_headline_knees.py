"""A QD sweep's knee in the headline is read off that curve's own row at the knee's depth, one job: a run
that sweeps random reads and random writes over the same depths gets the read curve's knee from the read
rows only, and a curve without a knee finding gets none. Records made here, through the run's own tables."""

from __future__ import annotations

from iolab.models import DirectionResult, Finding, LatencyStats, Point, PointRecord, Result, Severity, Target
from iolab.views.headline import headline_figures
from iolab.views.tables import notebook_tables

TARGET = Target("/data", "directory", "/data/iolab-scratch-0.dat", 1 << 30, scratch=True)
DEPTHS = (1, 2, 4, 8, 16, 32)


def _result(ddir: str, iops: float) -> Result:
    latency = LatencyStats("clat", 1000, 1e5, 5e4, 2e5, 3e4)
    return Result({ddir: DirectionResult(ddir, iops * 4096, iops, 1000, 1 << 30, 10_000, latency)}, 5.0, 5.0, 1, "")


def _records() -> list[PointRecord]:
    records = []
    for rw, ddir, scale in (("randread", "read", 1.0), ("randwrite", "write", 0.5)):
        for qd in DEPTHS:
            pid = len(records) + 1
            point = Point(f"{rw}-4k-qd{qd}", TARGET, {"rw": rw, "bs": "4k", "iodepth": str(qd)})
            records.append(PointRecord(pid, 1, pid, point, "ok", result=_result(ddir, scale * 10_000 * min(qd, 8))))
    return records


def _knee(subject: str, depth: str) -> Finding:
    return Finding("RES-QD-KNEE", "results", Severity.INFO, f"{subject}: knee at {depth}", subject, {"knee": depth})


def test_each_curves_knee_is_its_own_row_at_that_depth():
    records = _records()
    tables = notebook_tables(records, {})
    findings = [_knee("randread-4k", "QD 8"), _knee("randwrite-4k", "QD 4")]
    knees = [h for h in headline_figures(tables, records, {}, findings) if "knee" in h.label]
    assert [(h.label, h.workload, h.value) for h in knees] == [
        ("randread-4k knee (QD 8, read)", "randread-4k-qd8", "80.0k"),
        ("randwrite-4k knee (QD 4, write)", "randwrite-4k-qd4", "20.0k"),
    ]
    for h in knees:
        row = tables[h.table].rows[h.row]
        assert {records[pid - 1].point.name for pid in row.point_ids} == {h.workload}


def test_a_curve_without_a_knee_finding_has_no_knee_headline():
    records = _records()
    tables = notebook_tables(records, {})
    knees = [h for h in headline_figures(tables, records, {}, [_knee("randread-4k", "QD 2")]) if "knee" in h.label]
    assert [(h.label, h.workload) for h in knees] == [("randread-4k knee (QD 2, read)", "randread-4k-qd2")]
