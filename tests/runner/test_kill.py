"""kill -9 of iolab at any moment leaves no fio running, and nothing the next run cannot clean or resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests import in_process
from tests.iolab_cli import iolab

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
# When iolab is killed: as its fio keeper starts (negative), or this many seconds after fio starts.
MOMENTS = (-1.0, 0.0, 0.05, 0.1, 0.15, 0.2, 0.5, 1.0, 1.5, 2.5)
PLAN = """name = "w"
[options]
time_based = true
[[workloads]]
name = "randwrite"
options = { rw = "randwrite", bs = "4k", iodepth = 8, ioengine = "libaio", numjobs = 2 }
"""


def _processes(marker: str) -> dict[str, list[int]]:
    """This test's fio processes and fio keepers, found by a marker in their environment."""
    found: dict[str, list[int]] = {"fio": [], "keeper": []}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker.encode() not in f.read():
                    continue
            with open(f"/proc/{entry}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if comm == "fio":
            found["fio"].append(int(entry))
        elif b"supervisor.py" in cmdline:
            found["keeper"].append(int(entry))
    return found


def _kill_at(moment: float, marker: str, target, plan, tmpdir) -> None:
    """Start a run and SIGKILL iolab `moment` s after its fio starts (or as its keeper starts when negative)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "iolab",
            "run",
            str(plan),
            str(target),
            "--runtime",
            "3",
            "--ramp",
            "0",
            "--size",
            "32M",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "IOLAB_KILL_TEST": marker, "TMPDIR": str(tmpdir)},
    )
    wanted = "keeper" if moment < 0 else "fio"
    deadline = time.monotonic() + 60
    while not _processes(marker)[wanted]:
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "fio did not start"
        time.sleep(0.005)
    time.sleep(max(moment, 0))
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_sigkill_at_any_moment_leaves_no_fio_and_the_next_run_cleans_up(tmp_path, iolab_home):
    target = tmp_path / "target"
    target.mkdir()
    plan = tmp_path / "w.toml"
    plan.write_text(PLAN)
    tmpdir = tmp_path / "tmp"  # where iolab makes each fio run's job file and output
    tmpdir.mkdir()
    survivors = []
    for number, moment in enumerate(MOMENTS):
        marker = f"{os.getpid()}-{number}"
        _kill_at(moment, marker, target, plan, tmpdir)
        deadline = time.monotonic() + 2.0
        while any(_processes(marker).values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = _processes(marker)
        if any(left.values()):
            survivors.append((moment, left))
            for pid in left["fio"] + left["keeper"]:
                os.kill(pid, signal.SIGKILL)
    assert survivors == [], f"processes alive 2 s after iolab was killed: {survivors}"

    runs = json.loads(in_process.iolab("ls", "--json").stdout)
    assert len(runs) == 1 and runs[0]["status"] == "interrupted"  # one plan, resumed by every new start
    cleaned = iolab("clean", env={"TMPDIR": str(tmpdir)})
    assert cleaned.returncode == 0, cleaned.stderr
    assert not list(target.glob("iolab-scratch-*"))
    # Each fio run's temporary directory: removed by its keeper, or (killed before the keeper started)
    # by the next run or by `clean`.
    assert list(tmpdir.iterdir()) == []
    resumed = iolab("run", "--resume", str(runs[0]["id"]), timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    (run,) = json.loads(in_process.iolab("ls", "--json").stdout)
    assert run["status"] == "complete" and run["points_done"] == run["points_planned"] == 1
    assert not list(target.glob("iolab-scratch-*"))
