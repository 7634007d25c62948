"""A new home's store is made without syncing each migration (issue 42 item 10): SQLite's synchronous=NORMAL is
set before the migrations run, so in WAL mode their commits reach the disk at checkpoints, not one fdatasync a
migration (a new home's ~20 syncs were 0.05-0.25 s of every fresh `iolab import` on a busy disk)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import iolab.store.db as db
from iolab.store.migrations import available, latest_version, migrate

NORMAL = 1  # PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL


def test_migrations_of_a_new_home_run_with_synchronous_normal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []

    def watched(conn: sqlite3.Connection, source: str) -> int:
        seen.append(conn.execute("PRAGMA synchronous").fetchone()[0])
        return migrate(conn, source)

    monkeypatch.setattr(db, "migrate", watched)
    store = db.open_store(tmp_path / "home")
    try:
        assert seen == [NORMAL]
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()
    finally:
        store.close()


def test_the_shipped_migrations_read_by_name_are_every_sql_file_in_order() -> None:
    folder = Path(db.__file__).with_name("migrations")
    names = sorted(p.name for p in folder.glob("*.sql"))
    steps = available()
    assert [version for version, _ in steps] == sorted(int(name[:4]) for name in names)
    assert [sql for _, sql in steps] == [(folder / name).read_text() for name in names]
    assert latest_version() == steps[-1][0]
