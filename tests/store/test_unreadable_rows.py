"""A store holding rows an older iolab (or a hand edit) got wrong: every reader still works and names them.

The bad rows are written with SQL into a store filled by real imports of
real fio output, the way an older version's unchecked import left them.
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.in_process import iolab

FIO_JSON = Path(__file__).resolve().parents[1] / "data" / "fio" / "randread-4jobs.json"


def _copy_run(conn: sqlite3.Connection, source: int) -> int:
    """A new run holding a copy of run `source`'s point and results; returns its id (= its point's id here)."""

    def columns(table: str) -> list[str]:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})") if row[1] != "id"]

    runs, points, results = columns("runs"), columns("points"), columns("results")
    run_id = conn.execute(
        f"INSERT INTO runs ({','.join(runs)}) SELECT {','.join(runs)} FROM runs WHERE id = ?", (source,)
    ).lastrowid
    old_point = conn.execute("SELECT id FROM points WHERE run_id = ?", (source,)).fetchone()[0]
    picked = ",".join("?" if c == "run_id" else c for c in points)
    point_id = conn.execute(
        f"INSERT INTO points ({','.join(points)}) SELECT {picked} FROM points WHERE id = ?", (run_id, old_point)
    ).lastrowid
    picked = ",".join("?" if c == "point_id" else c for c in results)
    conn.execute(
        f"INSERT INTO results ({','.join(results)}) SELECT {picked} FROM results WHERE point_id = ?",
        (point_id, old_point),
    )
    return run_id


@pytest.fixture
def damaged_store(iolab_home: Path) -> dict[int, str]:
    """Three good runs of one workload, then four with one bad row each: run id -> what is wrong with it.

    The same file is imported once (its bytes again would name the run already holding them); two copies
    of that run make the other good runs."""
    assert iolab("import", str(FIO_JSON)).returncode == 0
    conn = sqlite3.connect(iolab_home / "iolab.db")
    with conn:
        for _ in range(2):
            _copy_run(conn, 1)
    damage = {
        "UPDATE results SET bw_bytes = 'garbage', percentiles = '{not json' WHERE point_id = ?": "bw_bytes",
        "DELETE FROM results WHERE point_id = ?": "no result",
        "UPDATE points SET spec = '{}' WHERE id = ?": "description",
        "UPDATE results SET lat_mean_ns = -5, iops = 9e999 WHERE point_id = ?": "iops",
    }
    bad = {}
    with conn:
        for sql, why in damage.items():
            run_id = _copy_run(conn, 3)
            point_id = conn.execute("SELECT id FROM points WHERE run_id = ?", (run_id,)).fetchone()[0]
            conn.execute(sql, (point_id,))
            bad[run_id] = why
    conn.close()
    return bad


def _names_every_bad_point(proc: subprocess.CompletedProcess, bad: dict[int, str]) -> None:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    for run_id, why in bad.items():
        line = next((ln for ln in proc.stderr.splitlines() if ln.startswith(f"iolab: run {run_id} point 1 ")), "")
        assert why in line and "left out" in line, (run_id, proc.stderr)


def test_history_export_and_html_report_survive_bad_rows(damaged_store, tmp_path):
    history = iolab("history")
    _names_every_bad_point(history, damaged_store)
    assert "rr on" in history.stdout and "7 runs" in history.stdout  # the good runs are all still there

    prom = tmp_path / "iolab.prom"
    export = iolab("export", "--prometheus", str(prom), "--csv", str(tmp_path / "all.csv"))
    _names_every_bad_point(export, damaged_store)
    assert "iolab_" in prom.read_text() and (tmp_path / "all.csv").read_text().count("\n") >= 8

    page = tmp_path / "report.html"
    report = iolab("report", "--html", str(page), *map(str, [1, *damaged_store]))
    _names_every_bad_point(report, damaged_store)
    html = page.read_text()
    assert html.count("stored result unreadable") == len(damaged_store)


def test_show_and_compare_name_the_bad_point(damaged_store):
    for run_id, why in damaged_store.items():
        shown = iolab("show", str(run_id))
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
        assert why in shown.stderr and "stored result unreadable" in shown.stdout
    compared = iolab("compare", "1", str(max(damaged_store)))
    assert compared.returncode == 0 and "Traceback" not in compared.stderr, compared.stderr
