"""Creating and migrating a new store is safe under any number of processes (issue: two timers started
together on a fresh IOLAB_HOME failed with 'table runs already exists' or 'database is locked').

Eight forked processes open one new home at the same instant (a barrier), twenty times over; every one
must get a store at the latest schema version, and each home ends with one schema, not two attempts."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

from iolab.store.db import DB_NAME, open_store
from iolab.store.migrations import latest_version

PROCESSES = 8
ROUNDS = 20


def _open(home: str, barrier: multiprocessing.synchronize.Barrier, results: multiprocessing.Queue) -> None:
    barrier.wait()
    try:
        store = open_store(Path(home))
        store.close()
        results.put("ok")
    except BaseException as exc:  # the test reports what a process saw, whatever it was
        results.put(f"{type(exc).__name__}: {exc}")


def test_eight_processes_opening_a_new_home_at_once_all_succeed(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    failures: list[str] = []
    for round_ in range(ROUNDS):
        home = tmp_path / f"home{round_}"
        barrier = context.Barrier(PROCESSES)
        results: multiprocessing.Queue = context.Queue()
        workers = [context.Process(target=_open, args=(str(home), barrier, results)) for _ in range(PROCESSES)]
        for worker in workers:
            worker.start()
        outcomes = [results.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(timeout=60)
        failures += [f"round {round_}: {o}" for o in outcomes if o != "ok"]
        with sqlite3.connect(home / DB_NAME) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()
    assert not failures, failures[:5]


def test_the_advice_names_the_real_cause() -> None:
    from iolab.store.db import _cannot_open

    path = Path("home/iolab.db")
    locked = _cannot_open(path, sqlite3.OperationalError("database is locked"))
    assert "another iolab process" in locked and "IOLAB_HOME" not in locked
    denied = _cannot_open(path, PermissionError(13, "Permission denied"))
    assert "set IOLAB_HOME to a writable directory" in denied
    read_only = _cannot_open(path, sqlite3.OperationalError("attempt to write a readonly database"))
    assert "set IOLAB_HOME to a writable directory" in read_only
    other = _cannot_open(path, sqlite3.OperationalError("disk I/O error"))
    assert "disk I/O error" in other and "writable" not in other and "another iolab" not in other
