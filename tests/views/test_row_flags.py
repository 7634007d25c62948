"""A row whose points a flagging finding names (served from memory, writes the device never saw, a page that
contradicts itself, above the link) carries that finding in its notes, both figures and the rule, once per
workload (on its first row, not on each direction's), and rows it does not name carry nothing."""

from __future__ import annotations

from iolab.models import DirectionResult, Finding, Point, PointRecord, Result, Run, Severity, Target
from iolab.views.tables import build_report

TARGET = Target("/data", "directory", "/data/f", 1 << 30, scratch=True)
RUN = Run(1, 1_000_000.0, "complete", "", "host", "iolab run", "fio-3.33", "0", finished_at=1_000_060.0)


def _record(pid: int, name: str, options: dict[str, str]) -> PointRecord:
    directions = {d: DirectionResult(d, 1e8, 1e8 / 4096, 1000, 1 << 30, 10_000) for d in ("read", "write")}
    if options["rw"] == "read":
        directions = {"read": directions["read"]}
    return PointRecord(pid, 1, pid, Point(name, TARGET, options), "ok", result=Result(directions, 5.0, 5.0, 1, ""))


def test_a_flagged_workload_carries_its_finding_once_and_the_others_nothing():
    records = [
        _record(1, "seq-read", {"rw": "read", "bs": "1m"}),
        _record(2, "mixed", {"rw": "randrw", "bs": "4k"}),
    ]
    cache = Finding("RES-FROM-CACHE", "results", Severity.CRITICAL, "mixed: read 1.0 GiB but sdb read 0 B", "mixed")
    info = Finding("RES-NOTE", "results", Severity.INFO, "seq-read: fine", "seq-read")
    report = build_report(RUN, records, {}, findings=[cache, info])
    notes = {(row.cells[0], row.ddir): row.notes for table in report.tables for row in table.rows}
    flagged = "mixed: read 1.0 GiB but sdb read 0 B (RES-FROM-CACHE)"
    assert [n for n, kept in notes.items() if flagged in kept] == [next(k for k in notes if k[0] == "mixed")]
    assert all(flagged not in kept and "RES-NOTE" not in " ".join(kept) for k, kept in notes.items() if k[0] != "mixed")
