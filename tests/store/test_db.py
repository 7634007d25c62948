"""The SQLite store: migrations, WAL, round trips, refusal of foreign files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, PointMetric, Sample, Target
from iolab.store.db import Artifact, open_store
from iolab.store.migrations import available
from iolab.store.queries import get_run, list_runs, point_samples, resolve_run_id, run_points

DATA = Path(__file__).parent.parent / "data" / "fio"


def _point(name="p") -> Point:
    target = Target(path="/x", kind="file", filename="/x/f", size_bytes=1 << 20)
    return Point(name=name, target=target, options={"rw": "randread", "bs": "4k"})


def test_new_store_is_wal_and_at_the_latest_schema(tmp_path):
    store = open_store(tmp_path)
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == available()[-1][0]


def test_point_round_trip_keeps_result_samples_and_artifacts(tmp_path):
    store = open_store(tmp_path)
    run_id = store.create_run("quick", "iolab run", ["/x"], "fio-3.33")
    (pid,) = store.plan_points(run_id, [_point()])
    out = parse_output((DATA / "randread-4jobs.json").read_text())
    result = aggregate(out.groups[0].entries, out.version)
    samples = [Sample("bw", "read", "job1", 1000, 1e6), Sample("bw", "read", "job1", 2000, 2e6)]
    store.record_point(pid, result, samples, [Artifact("fio.json", b"{}")], 1.0, 2.0)
    store.finish_run(run_id, "complete")

    (record,) = run_points(store, run_id)
    assert record.status == "ok"
    assert record.point == _point()
    read = record.result.directions["read"]
    assert read.bw_bytes == result.directions["read"].bw_bytes
    assert read.latency.percentiles == result.directions["read"].latency.percentiles
    assert record.result.jobs == 4
    assert point_samples(store, pid) == samples
    assert store.artifact(pid, "fio.json") == b"{}"
    run = get_run(store, run_id)
    assert (run.status, run.points_done, run.points_planned) == ("complete", 1, 1)


def test_unfinished_run_of_a_dead_process_reads_as_interrupted(tmp_path):
    store = open_store(tmp_path)
    run_id = store.create_run("quick", "iolab run", ["/x"], "fio-3.33")
    store.plan_points(run_id, [_point("a"), _point("b")])
    store.conn.execute("UPDATE runs SET pid = 2147483000 WHERE id = ?", (run_id,))
    store.conn.commit()
    (run,) = list_runs(store)
    assert run.status == "interrupted"
    assert (run.points_done, run.points_planned) == (0, 2)


def test_run_references(tmp_path):
    store = open_store(tmp_path)
    with pytest.raises(UserError, match="no runs yet"):
        resolve_run_id(store, "last")
    first = store.create_run("a", "", [], "")
    second = store.create_run("b", "", [], "")
    assert resolve_run_id(store, "last") == second
    assert resolve_run_id(store, str(first)) == first
    with pytest.raises(UserError, match="no run 99"):
        resolve_run_id(store, "99")
    with pytest.raises(UserError, match="not a run id"):
        resolve_run_id(store, "abc")


def test_newer_schema_is_refused(tmp_path):
    conn = sqlite3.connect(tmp_path / "iolab.db")
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    with pytest.raises(UserError, match="newer than this iolab"):
        open_store(tmp_path)


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    (tmp_path / "iolab.db").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(UserError, match="not a usable iolab database"):
        open_store(tmp_path)


def test_a_database_of_schema_9_is_upgraded_in_place_and_keeps_its_points(tmp_path):
    """Version 10 adds the side figures' table: a store an iolab of version 9 wrote opens, keeps its
    points (read back without side figures) and takes new points with them."""
    out = parse_output((DATA / "randread-4jobs.json").read_text())
    result = aggregate(out.groups[0].entries, out.version)
    store = open_store(tmp_path)
    run_id = store.create_run("old", "iolab run", ["/x"], "fio-3.33")
    (old,) = store.plan_points(run_id, [_point("old")])
    store.record_point(old, result, [], [], 1.0, 2.0)
    store.conn.executescript(  # as 9 left it
        "BEGIN; DROP TABLE phases; DROP TABLE point_metrics; ALTER TABLE findings DROP COLUMN quotes; ALTER TABLE points DROP COLUMN steady; DROP TABLE series;"
        " CREATE TABLE samples (point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE, metric TEXT NOT NULL,"
        " ddir TEXT NOT NULL, source TEXT NOT NULL, t_ms INTEGER NOT NULL, value REAL NOT NULL);"
        " PRAGMA user_version = 9; COMMIT;"
    )
    store.close()

    store = open_store(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == available()[-1][0]
    (new,) = store.plan_points(run_id, [_point("new")])
    figures = [PointMetric("host_cpu_us_per_io", 12.5), PointMetric("perf", None, "not available: no PMU")]
    store.record_point(new, result, [], [], 3.0, 4.0, metrics=figures)
    before, after = run_points(store, run_id)
    assert before.measured and before.result.directions["read"].iops == result.directions["read"].iops
    assert before.metrics == {}
    assert after.metrics == {m.name: m for m in figures}
    store.reset_point(new)
    assert run_points(store, run_id)[1].metrics == {}
