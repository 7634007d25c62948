"""Per-interval series stored as compressed columns (`store.columns`), and older stores' rows moved into them."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest

from iolab.fio.logs import read_logs
from iolab.models import Point, Sample, Target
from iolab.models.sample_series import SampleSeries, samples_of
from iolab.store.columns import decode, encode
from iolab.store.db import open_store
from iolab.store.migrations import available
from iolab.store.queries import point_samples, point_series, run_material

LOGS = Path(__file__).parent.parent / "data" / "fio" / "logs"


@pytest.mark.parametrize(
    "numbers",
    [
        np.array([999, 1999, 2999, 3999], dtype=np.int64),
        np.array([-5, 0, 127, 128, -129], dtype=np.int64),
        np.array([0, 2**40, -(2**40), 2**62], dtype=np.int64),
        np.array([1.5, -2.25, 1e300, 3.0]),
        np.array([8192.0, 8201.0, 0.0]),  # whole floats: stored as integers, read back the same
        np.array([], dtype=np.int64),
    ],
)
def test_a_column_reads_back_exactly(numbers):
    for delta in (False, True):
        back = decode(encode(numbers, delta=delta), "float64" if numbers.dtype.kind == "f" else "int64")
        assert back.tolist() == numbers.tolist()


def test_the_blob_is_readable_without_iolab():
    """The format the migration's comment states: 'i', the width, 'd' for differences, then zlib of little-endian numbers."""
    blob = encode(np.array([1000, 2000, 3000, 4000]), delta=True)
    assert blob[:3] == b"i\x02d"
    assert np.cumsum(np.frombuffer(zlib.decompress(blob[3:]), "<i2")).tolist() == [1000, 2000, 3000, 4000]
    assert encode(np.array([0.5]))[:3] == b"f\x08-"
    with pytest.raises(ValueError):
        decode(b"x\x08-" + zlib.compress(b""), "int64")


def _point() -> Point:
    return Point(name="p", target=Target(path="/x", kind="file", filename="/x/f", size_bytes=1 << 20), options={})


def test_real_logs_and_telemetry_are_stored_as_one_row_per_series(tmp_path):
    from iolab.fio.parse import aggregate, parse_output

    store = open_store(tmp_path)
    run_id = store.create_run("r", "iolab run", ["/x"], "fio-3.33")
    (pid,) = store.plan_points(run_id, [_point()])
    out = parse_output((LOGS / "logged.json").read_text())
    logs = read_logs(LOGS, "point")
    telemetry = [Sample("disk.bw", "read", "vda", t, 1e6 * t) for t in (1000, 2000, 3000)]
    store.record_point(pid, aggregate(out.groups[0].entries), telemetry, [], 1.0, 2.0, series=logs)
    assert store.conn.execute("SELECT COUNT(*) FROM series").fetchone()[0] == len(logs) + 1
    assert sorted(point_samples(store, pid), key=_key) == sorted(samples_of(logs) + telemetry, key=_key)
    bw = point_series(store, pid, ["bw"])
    assert {s.source for s in bw} == {"job1", "job2"} and all(s.values.dtype == np.float64 for s in bw)
    assert {s.metric for s in run_material(store, run_id).series[pid]} == {"bw", "disk.bw"}  # what the doctor reads
    store.reset_point(pid)
    assert point_samples(store, pid) == []


def _key(s: Sample) -> tuple:
    return (s.source, s.metric, s.ddir, s.t_ms)


def test_an_older_store_has_its_sample_rows_moved_into_series_when_opened(tmp_path):
    """A store at schema 11 (one row per sample) opened by this iolab: every row kept, in order, the old table gone."""
    conn = sqlite3.connect(tmp_path / "iolab.db")
    for version, sql in available():
        if version <= 11:
            conn.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
    conn.execute(
        "INSERT INTO runs (id, started_at, status, label, host, command, iolab_version) VALUES"
        " (1, 0, 'complete', 'old', 'h', 'iolab run', '0.1.0')"
    )
    for point_id in (1, 2):
        conn.execute(
            "INSERT INTO points (id, run_id, seq, key, name, spec, status) VALUES (?, 1, ?, ?, 'p', '{}', 'ok')",
            (point_id, point_id, f"k{point_id}"),
        )
    rows = [(1, "bw", "read", "job1", t, 1024.0 * t) for t in (1000, 2000, 3000)]
    rows += [(1, "lat", "read", "job1", 1000, 81234.5), (1, "bw", "write", "job2", 999, 7.0)]
    rows += [(2, "cpu.busy", "total", "cpu", t, 12.5) for t in (500, 1500)]
    rows += [(1, "bw", "read", "job1", 4000, 5.0)]  # a later row of a series already begun
    conn.executemany(
        "INSERT INTO samples (point_id, metric, ddir, source, t_ms, value) VALUES (?, ?, ?, ?, ?, ?)", rows
    )
    conn.commit()
    conn.close()

    store = open_store(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == available()[-1][0]
    tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "samples" not in tables
    for point_id in (1, 2):
        expected = [Sample(m, d, s, t, v) for p, m, d, s, t, v in rows if p == point_id]
        assert sorted(point_samples(store, point_id), key=_key) == sorted(expected, key=_key)
    (job1,) = [s for s in point_series(store, 1, ["bw"]) if s.source == "job1"]
    assert job1.t_ms.tolist() == [1000, 2000, 3000, 4000]  # the order the rows were written


def test_a_failed_move_leaves_the_older_store_as_it_was(tmp_path, monkeypatch):
    conn = sqlite3.connect(tmp_path / "iolab.db")
    for version, sql in available():
        if version <= 11:
            conn.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
    conn.close()

    def broken(conn: sqlite3.Connection) -> None:
        raise RuntimeError("disk gone")

    monkeypatch.setattr("iolab.store.migrations._python_steps", lambda: {13: broken})
    with pytest.raises(RuntimeError):
        open_store(tmp_path)
    conn = sqlite3.connect(tmp_path / "iolab.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 12  # the migrations before the move applied
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "samples" in tables and "series" not in tables


def test_series_of_samples_keeps_each_series_in_the_order_it_came():
    from iolab.models.sample_series import series_of

    samples = [Sample("bw", "read", "job1", 2000, 2.0), Sample("bw", "read", "job2", 1000, 9.0)]
    samples.append(Sample("bw", "read", "job1", 1000, 1.0))
    (job1, job2) = series_of(samples)
    assert isinstance(job1, SampleSeries) and job1.t_ms.tolist() == [2000, 1000] and len(job2) == 1
