"""`iolab import` takes fio's logs that sit beside a JSON file along with it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests import in_process
from tests.iolab_cli import iolab

LOGS = Path(__file__).parent / "data" / "fio" / "logs"


def test_logs_beside_the_json_become_the_points_samples(tmp_path):
    archive = tmp_path / "archive"
    shutil.copytree(LOGS, archive)
    proc = iolab("import", str(archive))
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(in_process.iolab("show", "1", "--json").stdout)
    (point,) = shown["points"]
    from iolab.store.db import open_store
    from iolab.store.queries import point_samples

    store = open_store()
    got = point_samples(store, point["id"])
    store.close()
    # fio wrote two jobs' bw, iops and lat logs at 1 s (log_avg_msec=1000) for 3 s.
    sources = {(s.metric, s.source) for s in got}
    assert {("bw", "job1"), ("bw", "job2"), ("iops", "job1"), ("lat", "job2")} <= sources
    bw_rows = [ln for ln in (archive / "point_bw.1.log").read_text().splitlines() if ln.strip()]
    assert 1 <= len([s for s in got if s.metric == "bw" and s.source == "job1"]) <= len(bw_rows)
    first = bw_rows[0].split(",")
    job1_bw = sorted((s for s in got if s.metric == "bw" and s.source == "job1"), key=lambda s: s.t_ms)
    assert job1_bw[0].t_ms == int(first[0]) and job1_bw[0].value == float(first[1]) * 1024  # KiB/s → bytes/s


def _stored(table: str) -> int:
    from iolab.store.db import open_store

    store = open_store()
    try:
        return store.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        store.close()


def test_logs_are_stored_once_as_columns_and_not_again_as_text(tmp_path):
    archive = tmp_path / "archive"
    shutil.copytree(LOGS, archive)
    proc = iolab("import", str(archive))
    assert proc.returncode == 0, proc.stderr
    rows = sum(len([ln for ln in p.read_text().splitlines() if ln.strip()]) for p in archive.glob("point_*.log"))
    assert f"{rows:,} log rows stored" in proc.stderr
    assert _stored("series") == 10  # two jobs' bw, iops, lat, clat and slat: one row each
    from iolab.store.db import open_store

    store = open_store()
    names = [r[0] for r in store.conn.execute("SELECT name FROM artifacts")]
    sources = [r[0] for r in store.conn.execute("SELECT source FROM provenance")]
    store.close()
    assert names == ["fio.json"]  # the output once; the logs are their series
    assert sources == [str(archive.resolve() / "logged.json")]  # where it came from
    again = iolab("import", str(archive))  # the same bytes: nothing stored twice
    assert again.returncode == 0, again.stderr
    assert "Already imported as run 1" in again.stderr
    assert _stored("series") == 10 and _stored("points") == 1


def test_no_logs_imports_the_results_alone_and_says_the_logs_were_left(tmp_path):
    archive = tmp_path / "archive"
    shutil.copytree(LOGS, archive)
    proc = iolab("import", "--no-logs", str(archive))
    assert proc.returncode == 0, proc.stderr
    assert "10 fio log files found, not read (--no-logs)" in proc.stderr
    assert "import " not in proc.stderr.split("Imported")[0]  # a small import draws no progress off a terminal
    shown = json.loads(in_process.iolab("show", "1", "--json").stdout)
    (point,) = shown["points"]
    assert point["status"] == "ok"
    assert _stored("series") == 0
