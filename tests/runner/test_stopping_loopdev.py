"""`iolab run --stop-when-known` with the real fio: a steady point ends early with fio's complete JSON, and a
device whose rate falls by half is never stopped before the fall and is not called known. Both judge a rate's
steadiness, which another worker's fio would disturb (so the module is serial); the maximum and the sum of
grouped jobs are held in `test_stopping_caps.py`, beside other workers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from tests import in_process
from tests.iolab_cli import iolab
from tests.loopdev import blkio_cgroup, loop_devices, throttle_skip_reason

MIB = 1 << 20
STEADY_JOB = "[steady]\nrw=randread\nbs=4k\nioengine=psync\nrate_iops=2000\ntime_based=1\n"
FALL_JOB = "[falling]\nrw=read\nbs=128k\niodepth=4\nioengine=libaio\ndirect=1\ntime_based=1\n"


def _fio_started(marker: str) -> bool:
    """Whether a fio process carrying `marker` in its environment runs (the point's measurement began)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as f:
                if f.read().strip() != "fio":
                    continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker.encode() in f.read():
                    return True
        except OSError:
            continue
    return False


def test_a_steady_point_ends_when_its_rate_is_known_and_keeps_fios_whole_json(tmp_path):
    job = tmp_path / "steady.fio"
    job.write_text(STEADY_JOB)
    target = tmp_path / "target"
    target.mkdir()
    started = time.monotonic()
    proc = iolab(
        "run", str(job), str(target), "--size", "16M", "--stop-when-known", "--max-seconds", "30",
        "--target-ci", "5%", "--json", "--no-telemetry",
    )  # fmt: skip
    wall = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    (point,) = json.loads(proc.stdout)["points"]
    stop = point["result"]["stopping"]
    assert stop["reason"] == "target met" and stop["ci"] <= 0.05, stop
    assert stop["kept_s"] < 30 and wall < 30, (stop, wall)  # ended long before the maximum
    read = point["result"]["directions"]["read"]
    assert read["iops"] == pytest.approx(2000, rel=0.05)  # the kept window's rate: fio's rate limit
    assert read["latency"]["percentiles"]["99.0"] > 0  # fio's final document was whole
    shown = in_process.iolab("show", "last")
    assert "stopped" in shown.stdout and "target met" in shown.stdout


@pytest.mark.skipif(throttle_skip_reason() is not None, reason=str(throttle_skip_reason()))
def test_a_rate_that_falls_by_half_is_not_stopped_before_the_fall_nor_called_known(tmp_path, iolab_home):
    job = tmp_path / "falling.fio"
    job.write_text(FALL_JOB)
    marker = f"iolab-stop-test-{os.getpid()}"
    fall_after_s = 4.5
    with loop_devices(1, size_mib=64) as (dev,), blkio_cgroup() as cgroup:
        cgroup.set_read_bps(dev.major_minor, 40 * MIB)

        def halve_when_measuring() -> None:
            deadline = time.monotonic() + 60
            while not _fio_started(marker) and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(fall_after_s)
            cgroup.set_read_bps(dev.major_minor, 20 * MIB)

        halving = threading.Thread(target=halve_when_measuring)
        halving.start()
        argv = [sys.executable, "-m", "iolab", "run", str(job), dev.path, "--stop-when-known"]
        argv += ["--min-seconds", "5", "--max-seconds", "8", "--json", "--no-telemetry"]
        proc = cgroup.popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, marker: "1"}
        )
        out, err = proc.communicate(timeout=120)
        halving.join()
    assert proc.returncode == 0, err
    (point,) = json.loads(out)["points"]
    stop = point["result"]["stopping"]
    assert stop["reason"] != "target met", stop  # a drifting rate is never called known
    assert stop["discarded_s"] + stop["kept_s"] >= 7, stop  # ran to (about) its maximum, past the fall
