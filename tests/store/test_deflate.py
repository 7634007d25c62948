"""The store's compressed bytes (`store.deflate`): zlib streams whichever deflate makes them.

ISA-L makes them since issue 42 (2-3x faster than zlib); zlib made every store before. Held here: any reader
with zlib alone reads what ISA-L makes, iolab reads what zlib made, and an import of fio's outputs under
tests/data (and one of IOR's) stores the same content either way, every table and column, row by row, its compressed columns
compared by what they decompress to (the bytes themselves differ).
"""

from __future__ import annotations

import random
import sqlite3
import zlib
from pathlib import Path

import pytest

from iolab.store import deflate

DATA = Path(__file__).parent.parent / "data"
# Compressed columns: (table, column, bytes before the zlib stream: a column's 3-byte header, `store.columns`).
COMPRESSED = {("artifacts", "data"): 0, ("series", "t_ms"): 3, ("series", "value"): 3}
# Set from the clock or the process as the import runs, not from what was imported (a terse output's points are
# stamped when stored: it says not when it ran).
CLOCK = {("runs", "started_at"), ("runs", "finished_at"), ("runs", "pid"), ("points", "started_at")}
CLOCK |= {("points", "finished_at")}
# fio's outputs of several shapes (json+ with numjobs, client/server, 3.1, terse) with their logs, and one of another
# tool's (kept as fio's are): every kind of compressed column, in few points (each store's points are recomputed by
# the oracle after the test: tests/data whole is ~2,000 points, 5 s).
IMPORTED = ["fio/logs", "fio/logs-dip", "fio/terse", "fio/randread-4jobs.json", "fio/client-server-3hosts.json"]
IMPORTED += ["fio/v3.1/randread-2jobs-jsonplus.json", "ior/compspec-ior-4.0.0rc1.json"]


def _samples() -> list[bytes]:
    """Empty, tiny, random, repetitive and text-like inputs, and a real json+ output."""
    rng = random.Random(42)
    found = [b"", b"x", bytes(range(256)), b"\x00" * 70_000, b"1000, 3, 0, 0\n" * 5_000]
    found += [rng.randbytes(rng.randrange(1, 40_000)) for _ in range(8)]
    found += [bytes(rng.choice(b"0123456789,\n ") for _ in range(rng.randrange(1, 20_000))) for _ in range(8)]
    found.append((DATA / "fio" / "randread-4jobs.json").read_bytes())
    return found


@pytest.mark.parametrize("data", _samples(), ids=lambda d: f"{len(d)}B")
def test_zlib_alone_reads_what_the_store_writes(data):
    blob = deflate.compress(data)
    assert zlib.decompress(blob) == data  # any reader, with or without iolab
    assert deflate.decompress(blob) == data


@pytest.mark.parametrize("level", [1, 6, 9])
def test_the_store_reads_what_zlib_wrote_before(level):
    """Older stores hold zlib's streams, at level 1 (since an earlier round) or zlib's default (before)."""
    for data in _samples():
        assert deflate.decompress(zlib.compress(data, level)) == data


def _import_all(home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[tuple]]:
    from iolab.imports import import_paths
    from iolab.store.db import open_store

    monkeypatch.setenv("IOLAB_HOME", str(home))
    store = open_store()
    try:
        import_paths([str(DATA / path) for path in IMPORTED], store, "test")
        return _contents(store.conn)
    finally:
        store.close()


def _contents(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    """Every table's rows, clock-made columns blanked, compressed columns decompressed."""
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    contents = {}
    for table in tables:
        cursor = conn.execute(f"SELECT * FROM {table} ORDER BY rowid")
        names = [d[0] for d in cursor.description]
        contents[table] = [tuple(_plain(table, name, v) for name, v in zip(names, row, strict=True)) for row in cursor]
    return contents


def _plain(table: str, column: str, value: object) -> object:
    if (table, column) in CLOCK:
        return None
    skip = COMPRESSED.get((table, column))
    if skip is not None and isinstance(value, bytes):
        return value[:skip] + zlib.decompress(value[skip:])
    return value


def test_an_import_stores_the_same_content_as_with_zlib(tmp_path, monkeypatch):
    """fio's outputs under tests/data (json+, terse, client/server, logs) and one of IOR's, imported once with the store's deflate and once with zlib's at level 1 (what stores held before), in one process."""
    now = _import_all(tmp_path / "isal", monkeypatch)
    monkeypatch.setattr(deflate, "compress", lambda data: zlib.compress(data, 1))
    before = _import_all(tmp_path / "zlib", monkeypatch)
    assert now["artifacts"] and now["series"] and now["points"]
    assert set(now) == set(before)
    for table in sorted(now):
        assert now[table] == before[table], table
