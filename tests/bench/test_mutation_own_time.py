"""bench/mutation.py times a mutant's tests by their own time, not the wall clock, and a time-out ends every
process they started. The held-out runs' time-outs (43 of 399 mutants at a load of 15-22 on two CPUs) were
tests waiting for a CPU, forked or in a fresh interpreter alike: 120 s of wall clock was 15-30 s of running.
Here a child made to wait for its CPU behind busy processes is judged by what it ran, and a child that never
ends is still stopped, with a process it started."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402

CPU = max(os.sched_getaffinity(0))


def _fork(body) -> int:  # type: ignore[no-untyped-def]
    """A child on one CPU (the same for all), in a group of its own as run_tests makes it, running `body`."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            os.sched_setaffinity(0, {CPU})
            body()
        finally:
            os._exit(0)
    return pid


def _spin(cpu_s: float) -> None:
    start = time.process_time()
    while time.process_time() - start < cpu_s:
        pass


@pytest.fixture
def busy() -> Iterator[None]:
    """Three processes spinning on the child's CPU: it runs a quarter of the time at most."""
    hogs = [_fork(lambda: _spin(5.0)) for _ in range(3)]
    yield
    for hog in hogs:
        os.kill(hog, 9)
        os.waitpid(hog, 0)


def test_a_child_waiting_for_its_cpu_is_timed_by_what_it_ran(busy):
    started = time.monotonic()
    child = _fork(lambda: _spin(0.06))
    status = mutation.watch(child, budget_s=0.2, tick_s=0.02)
    waited = time.monotonic() - started
    assert waited > 0.2  # the wall clock alone would have ended it
    assert status is not None and os.waitstatus_to_exitcode(status) == 0, f"ended after {waited:.2f} s"


def _state(pid: int) -> str:
    """A process's state letter, 'gone' when there is none."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return "gone"


def test_a_child_that_never_ends_is_stopped_with_what_it_started():
    read, write = os.pipe()

    def endless() -> None:
        sleeper = os.fork()
        if sleeper == 0:
            time.sleep(60)
            os._exit(0)
        os.write(write, str(sleeper).encode())
        while True:
            pass

    child = _fork(endless)
    os.close(write)
    sleeper = int(os.read(read, 32))
    os.close(read)
    started = time.monotonic()
    try:
        assert mutation.watch(child, budget_s=0.1, tick_s=0.02) is None
        assert time.monotonic() - started < 5
        assert _state(sleeper) in ("Z", "gone")  # killed: at most a zombie its new parent has not reaped
    finally:
        if _state(sleeper) not in ("Z", "gone"):
            os.kill(sleeper, 9)
