"""Starting a run the way a user does, and watching it from outside: its finished points, its fio."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

from tests.iolab_cli import as_in_a_terminal


def ok_points(home) -> int:
    db = home / "iolab.db"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM points WHERE status = 'ok'").fetchone()[0]
    except sqlite3.OperationalError:  # schema not created yet
        return 0


def start_run(target, runtime: str = "1") -> subprocess.Popen:
    # A marker in the environment lets the test find fio processes this run started.
    env = {**os.environ, "IOLAB_TEST_PARENT": str(os.getpid())}
    return subprocess.Popen(
        [sys.executable, "-m", "iolab", "run", str(target), "--runtime", runtime, "--ramp", "0", "--size", "64M"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=as_in_a_terminal,
    )


def wait_for_points(home, count: int, proc: subprocess.Popen, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while ok_points(home) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "points did not finish in time"
        time.sleep(0.1)


def fio_children_alive(parent_pid: int) -> bool:
    """Whether any fio process started by `parent_pid` is still alive (reparented or not)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{entry}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm == "fio" and f"IOLAB_TEST_PARENT={parent_pid}".encode() in env:
            return True
    return False
