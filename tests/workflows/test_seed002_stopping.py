"""Seed 002's initiator runs several jobs per queue depth under group_reporting; stopped once its rate is
known, such a point must read what all its jobs did. In a module of its own because it runs alone (the
serial tier, `tests/conftest.py`): whether a point stops at ±2% before its maximum depends on its seconds
being steady, which two CPUs shared with three other workers' fio do not keep."""

from __future__ import annotations

import json
import shutil

import pytest

from tests import in_process
from tests.iolab_cli import iolab

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


GROUPED_JOB = """[grouped]
rw=randread
bs=4k
ioengine=psync
rate_iops=500
numjobs=4
group_reporting=1
time_based=1
"""


def test_a_point_of_four_grouped_jobs_stopped_once_known_reads_all_four(tmp_path, iolab_home):
    """The seed's initiator runs several jobs per queue depth under group_reporting. Stopped once its rate is
    known, such a point must read what all its jobs did: four jobs at 500 IOPS each are 2,000 IOPS. Before
    the fix (issue 31) fio's grouped job_runtime, summed over the jobs, made it a quarter (26.3 MB/s for the
    104.9 a device gave) and kept it running to its maximum."""
    job = tmp_path / "grouped.fio"
    job.write_text(GROUPED_JOB)
    data = tmp_path / "data"
    data.mkdir()
    proc = iolab(
        "run", str(job), str(data), "--size", "16M", "--stop-when-known", "--max-seconds", "8", "--json",
        "--no-telemetry",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (point,) = json.loads(proc.stdout)["points"]
    assert point["result"]["directions"]["read"]["iops"] == pytest.approx(2000, rel=0.05), point["result"]
    stop = point["result"]["stopping"]
    assert stop["reason"] == "target met" and stop["discarded_s"] + stop["kept_s"] < 8, stop
    shown = in_process.iolab("show", "last")
    assert "stopped" in shown.stdout and "target met" in shown.stdout, shown.stdout
