"""Running fio: version check, a hung fio killed by the timeout, a failing job kept as failed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from iolab.errors import RunFailed, UserError
from iolab.fio import run as fio_run
from iolab.fio.run import fio_version, run_fio
from tests import in_process
from tests.iolab_cli import iolab

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def test_fio_version_is_read():
    assert fio_version().startswith("fio-3.")


def test_missing_fio_names_the_fix():
    with pytest.raises(UserError, match="apt-get install fio"):
        fio_version("fio-that-does-not-exist")


def test_a_fio_running_past_its_timeout_is_killed(tmp_path):
    job = tmp_path / "long.fio"
    job.write_text("[long]\nioengine=null\nrw=read\nsize=1g\ntime_based=1\nruntime=60\n")
    started = time.monotonic()
    with pytest.raises(RunFailed, match="did not finish within 2 s"):
        run_fio(job, tmp_path / "out.json", "fio", timeout_s=2)
    assert time.monotonic() - started < 20


def _fio_pids(job: Path) -> list[int]:
    """The fio processes running `job` (its path is in their command line)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "fio":
                if str(job).encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def _freeze_fio_and_ask(job: Path, after: int):
    """A watch that, on its `after`-th call, freezes fio (SIGSTOP: it can no longer act on the SIGINT it is
    about to get, as a hung fio cannot) and asks for the stop."""
    calls = []

    def watch() -> bool:
        calls.append(1)
        if len(calls) < after:
            return False
        for pid in _fio_pids(job):
            os.kill(pid, signal.SIGSTOP)
        return True

    return watch


def test_a_fio_that_does_not_stop_when_asked_fails_within_the_grace_not_the_whole_timeout(tmp_path, monkeypatch):
    """Issue 35: a stopped point's fio that hung ended the run with exit 3 after 175 s, the 150 s timeout of a
    60 s maximum; once asked to stop, fio gets STOP_GRACE_S."""
    monkeypatch.setattr(fio_run, "STOP_GRACE_S", 2.0)
    job = tmp_path / "long.fio"
    job.write_text("[long]\nioengine=null\nrw=read\nsize=1g\ntime_based=1\nruntime=60\n")
    started = time.monotonic()
    with pytest.raises(RunFailed, match="did not stop within 2 s of being asked"):
        run_fio(job, tmp_path / "out.json", "fio", timeout_s=120, watch=_freeze_fio_and_ask(job, after=3))
    assert time.monotonic() - started < 15
    assert not _fio_pids(job)  # nothing left behind


def test_a_failing_point_is_kept_as_failed_and_the_run_exits_3(tmp_path):
    job = tmp_path / "bad.fio"
    # O_DIRECT with a 1000-byte block fails in the kernel (EINVAL): fio's own error, not iolab's.
    job.write_text("[good]\nrw=read\nbs=4k\ntime_based=1\nruntime=1\n")
    bad = tmp_path / "bad2.fio"
    bad.write_text("[bad]\nrw=read\nbs=1000\ntime_based=1\nruntime=1\n")
    data = tmp_path / "data"
    data.mkdir()
    proc = iolab("run", str(bad), str(data), "--size", "16M", "--no-telemetry")
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "point(s) failed" in proc.stderr and "Invalid argument" in proc.stderr
    shown = in_process.iolab("show", "last", "--json")
    assert '"status": "failed"' in shown.stdout


def test_fio_is_given_the_tsc_only_where_the_kernel_keeps_time_with_it(tmp_path):
    from iolab.fio.run import fio_clocksource, point_jobfile
    from iolab.models import Point, Target

    assert fio_clocksource("tsc") == "cpu"
    assert [fio_clocksource(k) for k in ("kvm-clock", "hpet", "arch_sys_counter", None)] == [None] * 4
    target = Target(path=str(tmp_path), kind="directory", filename=str(tmp_path / "f"), size_bytes=1 << 20)
    assert "clocksource=cpu" in point_jobfile(Point("p", target, {"rw": "read"}), tmp_path, "cpu").splitlines()
    assert "clocksource" not in point_jobfile(Point("p", target, {"rw": "read"}), tmp_path, None)
    own = point_jobfile(Point("p", target, {"rw": "read", "clocksource": "gettimeofday"}), tmp_path, "cpu")
    assert "clocksource=gettimeofday" in own.splitlines() and "clocksource=cpu" not in own


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_the_clocksource_in_the_job_file_is_the_one_fio_runs_with(tmp_path):
    # Without it fio tests the TSC across CPUs at start-up and, on a VM, may pick either clock per process.

    from iolab.fio.run import point_jobfile
    from iolab.models import Point, Target

    target = Target(path=str(tmp_path), kind="directory", filename=str(tmp_path / "f"), size_bytes=1 << 20)
    options = {"ioengine": "null", "rw": "randread", "bs": "4k", "time_based": "1", "runtime": "200ms"}
    for clocksource, code in (("cpu", 3), ("clock_gettime", 2)):
        job = tmp_path / f"{clocksource}.fio"
        job.write_text(point_jobfile(Point("p", target, options), tmp_path, clocksource))
        for _ in range(3):
            out = subprocess.run(["fio", "--debug=time", str(job)], capture_output=True, text=True, check=True).stdout
            assert f"gettime: clocksource={code}" in out
