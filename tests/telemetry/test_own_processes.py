"""iolab's own processes never count as 'something else was busy' (issue 42 items 1 and 4): a process
iolab started (fio, its keeper, perf, a metric command sampled during the point), and anything those
started, is left out of the other processes' CPU, while a neighbour outside iolab's tree is charged."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from iolab.telemetry.processes import process_times

SLEEPER = "import os, sys, time\nopen(sys.argv[1], 'w').write(str(os.getpid()))\ntime.sleep(30)"


def _pid(path: Path) -> int:
    for _ in range(200):
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.02)
    raise AssertionError(f"{path} never got a pid")


def test_a_grandchild_of_iolab_is_not_another_process_but_a_neighbour_is(tmp_path: Path) -> None:
    ours_file, neighbour_file = tmp_path / "ours", tmp_path / "neighbour"
    # a grandchild: a shell that runs a script, as a metric command would
    ours = subprocess.Popen(["sh", "-c", f'{sys.executable} -c "$0" {ours_file}; :', SLEEPER])
    # a neighbour: double-forked, so no process of this test is its parent (another user's job on the host)
    subprocess.run(["sh", "-c", f'({sys.executable} -c "$0" {neighbour_file} &)', SLEEPER], check=True)
    grandchild, neighbour = _pid(ours_file), _pid(neighbour_file)
    try:
        seen = process_times(exclude=frozenset({os.getpid()})).ticks
        assert grandchild not in seen and ours.pid not in seen
        assert neighbour in seen
        assert grandchild in process_times().ticks  # the walk, not the reading, leaves it out
    finally:
        ours.kill()
        os.kill(grandchild, 9)
        os.kill(neighbour, 9)
        ours.wait()
