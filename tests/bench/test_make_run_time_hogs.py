"""bench/make_run_time.py's smoke hogs yield: a busy loop in a session of its own weighs a whole session in
Linux's scheduler (an autogroup) whatever its nice value, so the smoke sets the session's nice as well as the
process's; and they sleep, so they take no CPU at all. Read from /proc, not timed: the hog's session says
`nice 19` once it has set it, and the hog is sleeping (state S) once it waits; a busy loop never sleeps."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import make_run_time  # noqa: E402

pytestmark = pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="no scheduler autogroups here")


def _autogroup_nice(pid: int, wanted: int) -> int | None:
    """The nice value of `pid`'s autogroup, once it reads `wanted` (or what it read last, after 10 s)."""
    seen = None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        seen = int(Path(f"/proc/{pid}/autogroup").read_text().split()[-1])
        if seen == wanted:
            break
        time.sleep(0.01)
    return seen


def test_a_smoke_hog_leads_its_own_session_at_nice_19_and_a_measuring_one_at_0():
    hogs = make_run_time.start_hogs(1, make_run_time.HOG_NICE[True]) + make_run_time.start_hogs(1, 0)
    try:
        smoke, measuring = hogs
        assert os.getsid(smoke.pid) == smoke.pid != os.getsid(0)  # another user's session, as before
        assert _autogroup_nice(smoke.pid, 19) == 19
        assert _autogroup_nice(measuring.pid, 0) == 0  # the bench's own hogs still take their share
    finally:
        make_run_time.stop_hogs(hogs)


def _state(pid: int, wanted: str) -> str:
    """`pid`'s state letter in /proc/PID/stat, once it reads `wanted` (or what it read last, after 10 s)."""
    seen = ""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        seen = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if seen == wanted:
            break
        time.sleep(0.01)
    return seen


def test_a_smoke_hog_sleeps():
    (hog,) = make_run_time.start_hogs(1, make_run_time.HOG_NICE[True], make_run_time.HOG_LOOP[True])
    try:
        assert _autogroup_nice(hog.pid, 19) == 19  # past its start: what it does now is its loop
        assert _state(hog.pid, "S") == "S"
    finally:
        make_run_time.stop_hogs([hog])
