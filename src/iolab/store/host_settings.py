"""Records of host settings a run changed: each original value, kept until it is written back.

The runner records a sysfs file's original value before it first writes the file, and closes the record
once the original is back. A record still open after its process died is a killed run's change; the next
`iolab run` or `iolab clean` writes it back (`iolab.runner.host_settings`).
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass

from iolab.store.db import Store
from iolab.store.queries import effective_status


@dataclass(frozen=True)
class SettingRecord:
    """One changed file's original value, not yet written back."""

    id: int
    run_id: int | None
    path: str
    identity: str  # the boot and device the value belongs to
    original: str
    owner_running: bool  # the process that changed it is alive (or on another host: not this host's to judge)


def record_original(store: Store, path: str, identity: str, original: str) -> int:
    """Note a file's original value, before this process first writes the file."""
    with store.conn:
        cur = store.conn.execute(
            "INSERT INTO host_settings (pid, host, path, identity, original, recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
            (os.getpid(), socket.gethostname(), path, identity, original, time.time()),
        )
    assert cur.lastrowid is not None  # an INSERT always makes a row id
    return cur.lastrowid


def attach_run(store: Store, ids: list[int], run_id: int) -> None:
    """The run the recorded changes belong to, once it exists (they are recorded while values are tried)."""
    with store.conn:
        store.conn.executemany("UPDATE host_settings SET run_id = ? WHERE id = ?", [(run_id, i) for i in ids])


def mark_restored(store: Store, record_id: int) -> None:
    with store.conn:
        store.conn.execute("UPDATE host_settings SET restored_at = ? WHERE id = ?", (time.time(), record_id))


def open_records(store: Store) -> list[SettingRecord]:
    """Records not yet written back, oldest first (the order their files must be restored in)."""
    rows = store.conn.execute(
        "SELECT id, run_id, pid, host, path, identity, original FROM host_settings WHERE restored_at IS NULL"
        " ORDER BY id"
    )
    return [
        SettingRecord(
            r["id"],
            r["run_id"],
            r["path"],
            r["identity"],
            r["original"],
            effective_status("running", r["host"], r["pid"]) == "running",
        )
        for r in rows
    ]
