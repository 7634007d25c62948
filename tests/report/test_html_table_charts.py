"""Which charts the HTML page draws under each table: a sweep of a number (iodepth, bs) gets lines along its
axis, in order (throughput, latency percentiles, latency against throughput); a table of workloads side by side
(an overview, or a "sweep" of rw or of targets, which has no order to draw a line along) gets bars. Tables and
array sections are numbered from 1 within their run, as the page's titles say (and `--png` names its files). Inputs go through the same `notebook_tables`."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from iolab.models import DirectionResult, LatencyStats, Plan, Point, PointRecord, Result, Run, Target, Workload
from iolab.report.html import ChartOutput, array_sections, table_sections
from iolab.runner.arrays import array_points
from iolab.views.run import RunView
from iolab.views.tables import notebook_tables

MB = 1e6
TARGET = Target("/data", "directory", "/data/iolab-scratch-0.dat", 1 << 30, scratch=True)


def _result(bw: float) -> Result:
    latency = LatencyStats("clat", 1000, 1e5, 5e4, 2e5, 3e4, {50.0: 9e4, 99.0: 3e5, 99.9: 6e5})
    return Result({"read": DirectionResult("read", bw, bw / 4096, 1000, 1 << 30, 10_000, latency)}, 5.0, 5.0, 1, "")


def _material(options: list[dict[str, str]], run_id: int = 7):  # type: ignore[no-untyped-def]
    records = [
        PointRecord(i, run_id, i, Point(f"p{i}", TARGET, o), "ok", result=_result(100 * MB * i))
        for i, o in enumerate(options, start=1)
    ]
    tables = notebook_tables(records, {})
    return SimpleNamespace(run=SimpleNamespace(id=run_id), report=SimpleNamespace(tables=tables), records=records)


def _charts(material) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return [[c.id for c in s.charts] for s in table_sections(material, ChartOutput(svg=False))]


@pytest.mark.parametrize(("axis", "values"), [("iodepth", ["1", "4", "16"]), ("bs", ["4k", "64k", "1m"])])
def test_a_sweep_of_a_number_draws_lines_along_its_axis(axis, values):
    base = {"rw": "randread", "bs": "4k", "iodepth": "1"}
    material = _material([{**base, axis: v} for v in values])
    assert _charts(material) == [["run7-table1-throughput", "run7-table1-latency", "run7-table1-latency-throughput"]]


@pytest.mark.parametrize("rw", [["read", "randread", "write"], ["randread", "randwrite"]])
def test_workloads_side_by_side_draw_bars(rw):
    material = _material([{"rw": r, "bs": "4k", "iodepth": "1"} for r in rw])
    assert material.report.tables[0].axis == "rw" and not material.report.tables[0].columns[0].numeric
    assert _charts(material) == [["run7-table1-bars"]]


def test_tables_are_numbered_from_one_within_their_run():
    base = {"rw": "randread", "bs": "4k"}
    material = _material(
        [{**base, "iodepth": q} for q in ("1", "8")] + [{"rw": "write", "bs": b} for b in ("4k", "1m")]
    )
    sections = table_sections(material, ChartOutput(svg=False))
    assert len(sections) == len(material.report.tables) >= 2
    assert [s.id for s in sections] == [f"run7-table{n}" for n in range(1, len(sections) + 1)]
    assert [s.title.split(":")[0] for s in sections] == [f"Table 7.{n}" for n in range(1, len(sections) + 1)]


def test_array_sections_are_numbered_from_one_within_their_run():
    plan = Plan(
        name="a",
        workloads=[Workload("seqread", {"rw": "read", "bs": "1m"}), Workload("seqwrite", {"rw": "write", "bs": "1m"})],
    )
    targets = [Target(f"/dev/nvme{i}n1", "block", f"/dev/nvme{i}n1", 1 << 40) for i in range(2)]
    records = [
        PointRecord(i, 7, i, p, "ok", result=_result(1e9))
        for i, p in enumerate(array_points(plan, targets, ("together", "alone"), ("doubling",)), start=1)
    ]
    run = Run(7, 1_000_000.0, "complete", "", "host", "iolab run", "fio-3.33", "0", finished_at=1_000_060.0)
    sections = array_sections(RunView(run, records, {}, [], None, {}), ChartOutput(svg=False))
    assert [s.id for s in sections] == ["run7-array1", "run7-array2"]
    assert [s.title for s in sections] == ["Array: seqread", "Array: seqwrite"]
    assert all(c.id.startswith(s.id + "-") for s in sections for c in s.charts)
