"""Nothing lost: a run killed or interrupted keeps every point finished before it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.iolab_cli import as_in_a_terminal, iolab

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def _ok_points(home) -> int:
    db = home / "iolab.db"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM points WHERE status = 'ok'").fetchone()[0]
    except sqlite3.OperationalError:  # schema not created yet
        return 0


def _start_run(target, runtime: str = "1") -> subprocess.Popen:
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


def _wait_for_points(home, count: int, proc: subprocess.Popen, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while _ok_points(home) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "points did not finish in time"
        time.sleep(0.1)


def _fio_children_alive(parent_pid: int) -> bool:
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


def test_sigkill_mid_run_keeps_finished_points_in_a_readable_database(tmp_path, iolab_home):
    proc = _start_run(tmp_path, runtime="2")
    _wait_for_points(iolab_home, 2, proc)
    deadline = time.monotonic() + 30
    while not _fio_children_alive(os.getpid()):  # kill while a point is in flight
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.kill()
    proc.wait()

    (run,) = json.loads(iolab("ls", "--json").stdout)
    assert run["status"] == "interrupted"
    assert run["points_planned"] == 5
    assert run["points_done"] >= 2
    shown = json.loads(iolab("show", str(run["id"]), "--json").stdout)
    done = [p for p in shown["points"] if p["status"] == "ok"]
    assert [p["name"] for p in done][:2] == ["seqread-1m-qd32", "seqwrite-1m-qd32"]
    assert all(p["result"]["directions"] for p in done)
    with sqlite3.connect(iolab_home / "iolab.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    time.sleep(0.5)
    assert not _fio_children_alive(os.getpid()), "fio outlived iolab"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["ctrl-c", "term", "hup"])
def test_ctrl_c_term_or_hup_stop_cleanly_keep_points_and_remove_the_scratch_file(tmp_path, iolab_home, stop):
    proc = _start_run(tmp_path, runtime="3")
    _wait_for_points(iolab_home, 1, proc)
    proc.send_signal(stop)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    assert "interrupted:" in err and "are kept in run 1" in err
    assert not list(tmp_path.glob("iolab-scratch-*")), "scratch left behind"
    (run,) = json.loads(iolab("ls", "--json").stdout)
    assert run["status"] == "interrupted" and run["points_done"] >= 1
