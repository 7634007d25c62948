"""The installed fio parses the job files iolab writes for the generated points of test_effective_options.py
(moved from there, whose other tests need no fio and now run in the fast tier)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from iolab.fio.run import point_jobfile
from tests.fio.test_effective_options import POINTS


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_fio_takes_the_job_files_as_written(tmp_path):
    """The installed fio parses a sample of the generated job files (`--parse-only`: no file is opened)."""
    for point in POINTS[::40]:
        jobfile = tmp_path / f"{point.name}.fio"
        jobfile.write_text(point_jobfile(point, tmp_path))
        done = subprocess.run(
            ["fio", "--parse-only", str(jobfile)], capture_output=True, text=True, timeout=30, check=False
        )
        assert done.returncode == 0, (point, done.stderr)
