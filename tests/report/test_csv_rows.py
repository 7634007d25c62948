"""The CSV files a spreadsheet reads: `export`/`report --csv` give one row per point and direction, and a
point that failed, or that a killed run never reached, one row with its status and error and its figures
empty (never 0: it was not measured); `ls --csv` gives each run's finish time, or nothing for a run still
going, with its tags and notes. Runs stored with the Store's own writes; no fio."""

from __future__ import annotations

import csv
import io

from iolab.models import Point
from iolab.models.units import iso_utc
from iolab.report.csv_output import points_csv, render_run_list
from iolab.store.db import open_store
from iolab.store.queries import get_run
from iolab.store.tags import add_note, add_tags
from iolab.views.export import load_export
from iolab.views.run_list import load_run_list
from tests.store.test_series import MB, SEQ_READ, _bw, _run, _scratch

FIGURES = ("ddir", "bw_bytes", "iops", "runtime_ms", "usr_cpu", "jobs")


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_a_failed_or_unreached_point_is_one_row_with_its_error_and_no_figures(tmp_path):
    store = open_store(tmp_path / "store")
    done, _ = _run(store, "seq", SEQ_READ, [_bw(400), None, _bw(404)])
    killed = store.create_run("", "iolab run", ["/data"], "fio-3.33")
    first, never = store.plan_points(killed, [Point("seq", _scratch("/data", "k"), SEQ_READ, r) for r in (0, 1)])
    store.record_point(first, _bw(390), [], [], 1.0, 2.0)
    store.finish_run(killed, "stopped")
    rows = _rows(points_csv(load_export(store, [done, killed])))
    assert [(r["run_id"], r["repeat"], r["status"]) for r in rows] == [
        (str(done), "0", "ok"),
        (str(done), "1", "failed"),
        (str(done), "2", "ok"),
        (str(killed), "0", "ok"),
        (str(killed), "1", "pending"),
    ]
    assert int(rows[4]["point_id"]) == never
    for row in (rows[1], rows[4]):
        assert all(row[k] == "" for k in FIGURES), row
    assert rows[1]["error"] == "fio exited 1"
    assert [float(rows[i]["bw_bytes"]) for i in (0, 2, 3)] == [400 * MB, 404 * MB, 390 * MB]
    assert all(rows[i]["ddir"] == "read" and rows[i]["jobs"] == "1" for i in (0, 2, 3))
    store.close()


def test_ls_csv_gives_a_finished_runs_end_and_nothing_for_one_still_going(tmp_path):
    store = open_store(tmp_path / "store")
    finished, _ = _run(store, "seq", SEQ_READ, [_bw(400)])
    going = store.create_run("nightly run", "iolab run", ["/data"], "fio-3.33")
    add_tags(store, [finished], ["nightly", "ssd"])
    add_note(store, [finished], "first")
    add_note(store, [finished], "second")
    rows = {int(r["run_id"]): r for r in _rows(render_run_list(load_run_list(store)))}
    end = get_run(store, finished).finished_at
    assert end is not None and rows[finished]["finished_at"] == iso_utc(end)
    assert rows[going]["finished_at"] == "" and rows[going]["label"] == "nightly run"
    assert rows[finished]["tags"] == "nightly ssd" and rows[finished]["notes"] == "first | second"
    assert rows[finished]["imported"] == rows[going]["imported"] == ""
    store.close()
