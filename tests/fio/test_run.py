"""Running fio: version check, a hung fio killed by the timeout, a failing job kept as failed."""

from __future__ import annotations

import shutil
import time

import pytest

from iolab.errors import RunFailed, UserError
from iolab.fio.run import fio_version, run_fio
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
    shown = iolab("show", "last", "--json")
    assert '"status": "failed"' in shown.stdout
