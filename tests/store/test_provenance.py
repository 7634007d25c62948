"""Migration 0009 upgrades a database in place: its runs stay readable, imports get their provenance."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from iolab.imports import import_paths
from iolab.store.db import open_store
from iolab.store.migrations import available, migrate
from iolab.store.provenance import runs_holding
from iolab.store.queries import list_runs, run_points

FIO_JSON = Path(__file__).parent.parent / "data" / "fio" / "randread-4jobs.json"


def test_a_database_from_before_provenance_is_upgraded_in_place(tmp_path):
    # A database as the iolab before 0009 left it: every earlier migration, a run of its own in it.
    conn = sqlite3.connect(tmp_path / "iolab.db")
    for version, sql in available():
        if version < 9:
            conn.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
    conn.execute(
        "INSERT INTO runs (started_at, status, label, host, command, fio_version, iolab_version)"
        " VALUES (1.0, 'complete', 'import', 'h', 'iolab import x', 'fio-3.33', '0.1')"
    )
    conn.commit()
    conn.close()

    store = open_store(tmp_path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == available()[-1][0]
    assert [r.label for r in list_runs(store)] == ["import"]  # the old run, unchanged
    assert run_points(store, 1) == []
    outcome = import_paths([str(FIO_JSON)], store, "iolab import")
    (record,) = run_points(store, outcome.run_ids[0])
    assert record.result is not None and record.result.fio_version == "fio-3.33"
    digest = hashlib.sha256(FIO_JSON.read_bytes()).hexdigest()
    assert runs_holding(store, [digest, "0" * 64]) == {digest: outcome.run_id}
    assert migrate(store.conn, "again") == available()[-1][0]  # nothing left to apply
