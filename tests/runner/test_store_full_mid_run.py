"""IOLAB_HOME filling up mid-run (runner.execute._store_failed): the run stops with one line saying what to
free, the reserve file is given back first so the run can still be marked failed, and the line names the run
that keeps the points stored before it; a run of another process (or none) is not touched."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from types import SimpleNamespace

from iolab.errors import RunFailed
from iolab.runner.execute import _store_failed


def _store(rows: list[tuple[int, int, str]]) -> SimpleNamespace:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE runs (id INTEGER, pid INTEGER, status TEXT)")
    conn.executemany("INSERT INTO runs VALUES (?, ?, ?)", rows)
    done: list[str] = []
    return SimpleNamespace(
        path=Path("/home/u/.local/share/iolab/iolab.db"),
        conn=conn,
        done=done,
        release_reserve=lambda: done.append("reserve released"),
        finish_run=lambda run_id, status, message: done.append(f"run {run_id} {status}: {message}"),
    )


def test_a_full_home_fails_this_process_s_running_run_and_says_what_to_free():
    store = _store([(3, os.getpid() + 1, "running"), (7, os.getpid(), "running"), (8, os.getpid(), "finished")])
    failed = _store_failed(store, sqlite3.OperationalError("database or disk is full"))  # type: ignore[arg-type]
    first = (
        "cannot write the iolab database (database or disk is full): free space in /home/u/.local/share/iolab "
        "or set IOLAB_HOME"
    )
    assert isinstance(failed, RunFailed) and str(failed) == first + "; run 7 keeps the points stored before it"
    assert store.done == ["reserve released", f"run 7 failed: {first}"]


def test_without_a_running_run_of_this_process_only_the_line_is_said():
    store = _store([(3, os.getpid() + 1, "running")])
    failed = _store_failed(store, sqlite3.OperationalError("disk I/O error"))  # type: ignore[arg-type]
    assert str(failed).endswith("or set IOLAB_HOME") and store.done == ["reserve released"]
