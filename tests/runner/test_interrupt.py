"""Nothing lost: a run killed mid-point keeps every point finished before it, and no fio outlives it.

Runs alone (tests/conftest.py SERIAL): it aims SIGKILL inside a point. Ctrl-C, TERM and HUP are in
test_stop_signals.py."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time

import pytest

from tests.in_process import iolab
from tests.runner.interrupting import fio_children_alive, start_run, wait_for_points

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def test_sigkill_mid_run_keeps_finished_points_in_a_readable_database(tmp_path, iolab_home):
    proc = start_run(tmp_path, runtime="2")
    wait_for_points(iolab_home, 2, proc)
    deadline = time.monotonic() + 30
    while not fio_children_alive(os.getpid()):  # kill while a point is in flight
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
    assert not fio_children_alive(os.getpid()), "fio outlived iolab"
