"""A metadata run's tables: one per operation, a row per thread count, operations per second (no MB/s)."""

from __future__ import annotations

from iolab.models import DirectionResult, LatencyStats, Point, PointRecord, Result, Target
from iolab.plan.presets import metadata_workload
from iolab.views.tables import notebook_tables

DIR = Target(path="/data", kind="directory", filename="/data/iolab-scratch-0.dat", size_bytes=2 << 30, writable=True)


def _record(seq: int, operation: str, threads: int, files: int, ops: int, runtime_ms: int) -> PointRecord:
    workload = metadata_workload(operation, threads, files, 2)
    latency = LatencyStats("clat", ops, 1000.0, 10.0, 500.0, 2000.0, {99.0: 1500.0})
    direction = DirectionResult(
        "read", ops * 4096 / runtime_ms * 1000, ops / runtime_ms * 1000, ops, ops * 4096, runtime_ms
    )
    direction.latency = latency
    result = Result({"read": direction}, 40.0, 60.0, threads, "fio-3.33")
    return PointRecord(seq, 1, seq, Point(workload.name, DIR, dict(workload.options)), "ok", result=result)


def test_each_operation_has_its_table_of_ops_per_second_by_threads():
    records = [
        _record(1, "create", 1, 2400, 2000, 2000),
        _record(2, "stat", 1, 2000, 400_000, 2000),
        _record(3, "remove", 1, 2000, 2000, 40),
        _record(4, "create", 2, 1200, 3000, 2000),
        _record(5, "stat", 2, 1500, 700_000, 2000),
        _record(6, "remove", 2, 1500, 3000, 50),
    ]
    tables = notebook_tables(records, {})
    assert [t.title for t in tables] == [
        "file create: ops/s by threads",
        "file stat: ops/s by threads",
        "file remove: ops/s by threads",
    ]
    create, stat, remove = tables
    headers = [c.header for c in create.columns]
    assert headers[:3] == ["threads", "files per thread", "ops/s"] and "MB/s" not in headers and "dir" not in headers
    assert [row.cells[:3] for row in create.rows] == [("1", "2000", "1,000"), ("2", "1500", "1,500")]
    assert [row.cells[1] for row in stat.rows] == ["2000", "1500"]  # the files it went round, not its stat count
    assert [row.cells[headers.index("ran")] for row in remove.rows] == ["40 ms", "50 ms"]
    fixed = dict(create.fixed)
    assert fixed["ioengine"] == "filecreate" and "direct" not in fixed and "iodepth" not in fixed
    assert "read" not in " ".join(cell for row in create.rows for cell in row.cells)
