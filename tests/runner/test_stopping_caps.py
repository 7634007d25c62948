"""`iolab run --stop-when-known` with the real fio, where other workers' fio cannot change the answer: a point
that never meets its target ends at its maximum by fio's own runtime, and a stopped point's rate is the bytes of
all its jobs whatever group_reporting says (its device capped by blkio)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from tests.iolab_cli import run_job
from tests.loopdev import blkio_cgroup, loop_devices, throttle_skip_reason

MIB = 1 << 20
STEADY_JOB = "[steady]\nrw=randread\nbs=4k\nioengine=psync\nrate_iops=2000\ntime_based=1\n"


def test_a_point_whose_target_is_never_met_ends_at_its_jobs_own_runtime_by_fios_own_runtime(tmp_path, iolab_home):
    """A job's own runtime=3 is the maximum, not the rule's 60 s default (a runtime=15 job once ran 60 s, and
    the invariant check of every stored result, in conftest's fixture, named it)."""
    args = ["--size", "16M", "--stop-when-known", "--target-ci", "0.001%", "--json", "--no-telemetry"]
    proc = run_job(tmp_path, STEADY_JOB + "runtime=3\n", *args)
    assert proc.returncode == 0, proc.stderr  # not a point killed by a stop sent as fio ended by itself
    (point,) = json.loads(proc.stdout)["points"]
    assert point["status"] == "ok", point
    stop = point["result"]["stopping"]
    assert stop["reason"] in ("target not met", "not steady"), stop
    ran = point["result"]["directions"]["read"]["runtime_ms"]
    # ran to its own maximum, not stopped early; a loaded host may overrun fio's runtime by most of a second (the
    # project's CI: a runtime=15 job at 15,969 ms counted 16 s), never by the rule's 60 s default
    assert 2 <= stop["discarded_s"] + stop["kept_s"] <= max(3, math.ceil(ran / 1000)), (ran, stop)
    assert ran < 8_000, point["result"]["directions"]["read"]


def test_a_job_bounded_by_its_size_writes_its_size_once_and_no_more(tmp_path, iolab_home):
    """Stopping ends a point sooner, never later: a write-once job of 8 MiB stays bounded by its size (made
    time-based, it would write its 8 MiB over and over until the maximum)."""
    job = "[once]\nrw=write\nbs=1m\nioengine=psync\nrate=16m\n"
    proc = run_job(tmp_path, job, "--size", "8M", "--stop-when-known", "--allow-write", "--json")
    assert proc.returncode == 0, proc.stderr
    (point,) = json.loads(proc.stdout)["points"]
    write = point["result"]["directions"]["write"]
    assert write["io_bytes"] <= 8 * MIB and write["runtime_ms"] < 2_000, write  # its 8 MiB once, at 16 MiB/s


GROUPED_PLAN = """name = "grouped"
[options]
rw = "read"
bs = "1m"
numjobs = 4
time_based = 1
[axes]
group_reporting = [true, false]
"""


@pytest.mark.skipif(throttle_skip_reason() is not None, reason=str(throttle_skip_reason()))
def test_a_stopped_rate_is_the_bytes_of_all_jobs_whatever_group_reporting_says(tmp_path, iolab_home):
    """Issue 31: four jobs under group_reporting=1 read 26.3 MB/s (a quarter) and "after 20 s" with a 6 s cap,
    since fio sums the grouped jobs' job_runtime; both points must read the device's cap within its maximum
    (one job alone never showed the defect, so the suite runs only the four jobs, grouped and not)."""
    plan = tmp_path / "grouped.toml"
    plan.write_text(GROUPED_PLAN)
    with loop_devices(1, size_mib=256) as (dev,), blkio_cgroup() as cgroup:
        cgroup.set_read_bps(dev.major_minor, 100 * MIB)
        argv = [sys.executable, "-m", "iolab", "run", str(plan), dev.path, "--stop-when-known"]
        argv += ["--max-seconds", "6", "--json", "--no-telemetry"]
        proc = cgroup.popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    points = json.loads(out)["points"]
    assert len(points) == 2
    for point in points:
        result = point["result"]
        # the defect read a quarter of the cap; a host the suite loads reads a few percent under it (seen: 93%)
        assert result["directions"]["read"]["bw_bytes"] == pytest.approx(100 * MIB, rel=0.2), point["name"]
        stop = result["stopping"]
        assert stop["discarded_s"] + stop["kept_s"] <= 6, (point["name"], stop)  # the cap holds
