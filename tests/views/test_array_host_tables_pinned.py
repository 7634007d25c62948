"""An array run measured only together, only alone or as sets alone, and a multi-host point's hosts: the
tables each gets, cell by cell.

Why: the generated array runs of tests/views/test_pages_pinned.py measure every member together and alone
and their sets, so which tables a run measured one way only gets (a device table from either half; no scaling
table from one size of set) and each host's row of a multi-host point (`host_table`) were read by no fast test.
"""

from __future__ import annotations

import random

import pytest

from iolab.models.material import HostRow
from iolab.views.array_tables import array_tables, host_table
from tests.page_runs import generated_run


def _array():  # type: ignore[no-untyped-def]
    made = generated_run(random.Random(3), 5)
    assert made.shape == "array"
    return made


def _cells(table) -> list[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    return [tuple(c.header for c in table.columns)] + [row.cells for row in table.rows]


@pytest.mark.parametrize("kept", ["together", "alone"])
def test_an_array_measured_one_way_only_still_gets_its_device_table(kept):
    made = _array()
    together = [r for r in made.records if r.point.target.kind == "group" and r.point.name.endswith("-together")]
    alone = [r for r in made.records if r.point.target.kind != "group"]
    records = together if kept == "together" else alone
    assert records
    (table,) = array_tables(records, made.device_bw)  # one size of set: no scaling table
    assert table.kind == "device" and table.title.startswith("Per device · ")
    cells = _cells(table)
    members = sorted({m.rsplit("/", 1)[-1] for r in together for m in r.point.target.members})
    assert [row[0] for row in cells[1:]] == members
    empty = [i for i, title in enumerate(cells[0]) if ("alone" if kept == "together" else "together") in title]
    assert empty and all(row[i] in ("-", "") for row in cells[1:] for i in empty), cells


def test_a_run_with_no_array_point_has_no_array_table():
    made = generated_run(random.Random(3), 0)
    assert array_tables(made.records, {}) == []


def test_the_scaling_table_keeps_the_best_single_drive_first_and_every_set_after():
    made = _array()
    tables = array_tables(made.records, made.device_bw)
    (scaling,) = [t for t in tables if t.kind == "scaling"]
    counts = [row.cells[0] for row in scaling.rows]
    assert counts[0] == "1" and "1" not in counts[1:] and len(counts) >= 2, counts


def test_each_host_of_a_multi_host_point_is_a_row_of_its_own_with_a_failure_s_error():
    made = generated_run(random.Random(3), 0)
    first, second = made.records[0], made.records[1]
    hosts = {
        first.id: [
            HostRow(first.id, "db1", "ok", "", 2000, 1.5e9, 366.2, 87_000.0, 250_000.0),
            HostRow(first.id, "db2", "failed", "fio exited 1", None),
        ],
        second.id: [HostRow(second.id, "db3", "ok", "", 1500, 2.5e6, 610.0, 1.6e6, 4.1e6)],
    }
    table = host_table(made.records, hosts)
    assert table is not None and table.title == "Per host" and table.caption.startswith("runtime: ")
    rows = [row.cells for row in table.rows]
    assert [r[:3] for r in rows] == [
        (first.point.name, "db1", "ok"),
        (first.point.name, "db2", "failed: fio exited 1"),
        (second.point.name, "db3", "ok"),
    ]
    assert rows[0][3:] == ("1,500", "366", "87.0 µs", "250 µs", "2 s"), rows[0]
    assert host_table(made.records, {}) is None
