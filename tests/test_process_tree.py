"""The measuring fio is found below a keeper, and a fio that is iolab's own child (a probe) is not it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from tests.process_tree import measuring_fio

requires_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
FIO = ["fio", "--name=spin", "--ioengine=null", "--size=1g", "--time_based", "--runtime=2", "--output=/dev/null"]
# A stand-in for the keeper: a process between us and fio, as iolab -> keeper -> fio.
KEEPER = [sys.executable, "-c", "import subprocess, sys; subprocess.run(sys.argv[1:])"]


def _wait_for(found, deadline_s: float = 10.0):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        pid = found()
        if pid is not None:
            return pid
        time.sleep(0.02)
    return None


@requires_fio
def test_a_fio_below_a_keeper_is_the_measuring_one():
    with subprocess.Popen([*KEEPER, *FIO], stdout=subprocess.DEVNULL) as keeper:
        pid = _wait_for(lambda: measuring_fio(os.getpid()))
        assert pid is not None and pid not in (os.getpid(), keeper.pid)
        keeper.wait(timeout=30)


@requires_fio
def test_a_fio_that_is_our_own_child_is_a_probe_not_the_measuring_one():
    """The old test waited for a fio whose parent is iolab: since the keeper that is only ever a probe."""
    with subprocess.Popen(FIO, stdout=subprocess.DEVNULL) as probe:
        time.sleep(0.5)
        assert probe.poll() is None  # running, our child, named fio
        assert measuring_fio(os.getpid()) is None
        probe.wait(timeout=30)
