"""Which parameter a table sweeps, and in what order: a numeric parameter (thinktime, rwmixread, bs) is laid out
in numeric order whatever order the points ran in, its zero first; it sweeps the workloads that differ in it
alone even when others stand beside them, while a parameter with no order (rw, a target) is a table's axis only
when it covers every workload. Tables through the run's own `notebook_tables`."""

from __future__ import annotations

import pytest

from iolab.models import DirectionResult, Point, PointRecord, Result, Target
from iolab.views.tables import notebook_tables

TARGET = Target("/data", "directory", "/data/f", 1 << 30, scratch=True)


def _records(options: list[dict[str, str]]) -> list[PointRecord]:
    result = Result({"read": DirectionResult("read", 1e8, 1e8 / 4096, 1000, 1 << 30, 10_000)}, 5.0, 5.0, 1, "")
    return [PointRecord(i, 1, i, Point(f"p{i}", TARGET, o), "ok", result=result) for i, o in enumerate(options, 1)]


@pytest.mark.parametrize(
    ("key", "ran", "shown"),
    [("thinktime", ["1", "0", "2"], ["0", "1", "2"]), ("rwmixread", ["50", "0", "100"], ["0", "50", "100"])],
)
def test_a_numeric_sweep_is_in_numeric_order_its_zero_first(key, ran, shown):
    base = {"rw": "randrw" if key == "rwmixread" else "randread", "bs": "4k"}
    (table,) = notebook_tables(_records([{**base, key: v} for v in ran]), {})
    assert table.axis == key and [row.cells[0] for row in table.rows] == shown


def test_a_numeric_parameter_sweeps_some_workloads_and_one_without_order_only_all():
    options = [{"rw": "read", "bs": "4k"}, {"rw": "read", "bs": "1m"}, {"rw": "write", "bs": "4k"}]
    tables = notebook_tables(_records(options), {})
    assert tables[0].axis == "bs" and [row.cells[0] for row in tables[0].rows] == ["4k", "1m"]
    assert all(table.axis != "rw" for table in tables)
