"""A result's fields are declared once (`models.result_fields.RESULT_FIELDS`): the store's INSERT, its SELECT,
the integrity check and the CSV export all read that declaration.

The test adds a field to the declaration (and its column to a store, as a migration would) and sees it in all
four: written from the parsed direction, read back into it, checked for a value no reader can use, and
exported as a CSV column. It is a copy of the mean latency stored again, so reading it back has an attribute
to land on: the later field wins, and a different value written into its column shows in what is read.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, Target, result_fields
from iolab.models.result_fields import NUMBER, RESULT_FIELDS, ResultField, direction_of
from iolab.report.csv_output import points_csv, result_columns
from iolab.store.db import Artifact, Store, open_store
from iolab.store.integrity import unreadable_points
from iolab.store.queries import run_points
from iolab.views.export import load_export

DATA = Path(__file__).parent.parent / "data" / "fio"
EXTRA = ResultField("lat_mean_again_ns", NUMBER, "mean_ns", latency=True)


def _stored(tmp_path: Path) -> tuple[Store, int, int, object]:
    """A store holding one measured point of real fio output (randread, 4 jobs)."""
    store = open_store(tmp_path)
    store.conn.execute(f"ALTER TABLE results ADD COLUMN {EXTRA.column} REAL")
    run_id = store.create_run("fields", "iolab run", ["/x"], "fio-3.33")
    target = Target(path="/x", kind="file", filename="/x/f", size_bytes=1 << 20)
    (point_id,) = store.plan_points(run_id, [Point("p", target, {"rw": "randread", "bs": "4k"})])
    out = parse_output((DATA / "randread-4jobs.json").read_text())
    result = aggregate(out.groups[0].entries, out.version)
    store.record_point(point_id, result, [], [Artifact("fio.json", b"{}")], 1.0, 2.0)
    store.finish_run(run_id, "complete")
    return store, run_id, point_id, result


def test_a_field_added_to_the_declaration_is_written_read_checked_and_exported(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(result_fields, "RESULT_FIELDS", (*RESULT_FIELDS, EXTRA))
    store, run_id, point_id, result = _stored(tmp_path)
    mean = result.directions["read"].latency.mean_ns
    # INSERT: the new column holds the figure of the parsed direction
    (stored,) = store.conn.execute(f"SELECT {EXTRA.column} FROM results WHERE point_id = ?", (point_id,)).fetchone()
    assert stored == mean
    # CSV: a column of its own, holding the figure
    (row,) = csv.DictReader(io.StringIO(points_csv(load_export(store, [run_id]))))
    assert EXTRA.column in row and float(row[EXTRA.column]) == mean
    # SELECT: the value in its column is what comes back
    store.conn.execute(f"UPDATE results SET {EXTRA.column} = 123.5 WHERE point_id = ?", (point_id,))
    (record,) = run_points(store, run_id)
    assert record.result.directions["read"].latency.mean_ns == 123.5
    # integrity: a value no reader can use names the point and the field
    store.conn.execute(f"UPDATE results SET {EXTRA.column} = 'x' WHERE point_id = ?", (point_id,))
    assert unreadable_points(store, [run_id]) == {point_id: f"{EXTRA.column} is not a number in range"}


@pytest.mark.parametrize("field", [f for f in RESULT_FIELDS if f.kind == NUMBER], ids=lambda f: f.column)
def test_every_declared_figure_is_checked(tmp_path, field: ResultField) -> None:
    store, run_id, point_id, _ = _stored(tmp_path)
    assert unreadable_points(store, [run_id]) == {}
    store.conn.execute(f"UPDATE results SET {field.column} = 'garbage' WHERE point_id = ?", (point_id,))
    assert unreadable_points(store, [run_id]) == {point_id: f"{field.column} is not a number in range"}


def test_each_declared_field_round_trips_and_is_exported(tmp_path) -> None:
    store, run_id, point_id, result = _stored(tmp_path)
    (record,) = run_points(store, run_id)
    assert record.result.directions == result.directions
    row = store.conn.execute("SELECT * FROM results WHERE point_id = ?", (point_id,)).fetchone()
    assert direction_of(row, RESULT_FIELDS) == result.directions["read"]
    (exported,) = csv.DictReader(io.StringIO(points_csv(load_export(store, [run_id]))))
    assert [c for c in exported if c in set(result_columns())] == result_columns()
    for field in RESULT_FIELDS:
        for column, value in field.cells(result.directions["read"]).items():
            assert exported[column] == str(value), column
