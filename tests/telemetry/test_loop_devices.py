"""Real fio on real loop devices, throttled with cgroup v1 blkio or v2 io.max, watched by the Sampler.

Loop devices over tmpfs are CPU-bound, so their speed alone would measure the
scheduler. Each test therefore gives every device the same read ceiling
(identical "drives") and then slows one down: the analyses must find what
was applied. Skipped, with the reason, where there is no root, loop or blkio.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iolab.analysis.dips import detect_dips
from iolab.analysis.outliers import find_outliers
from iolab.analysis.series import series_by_source
from iolab.telemetry import Sampler, devices_for_path

sys.path.insert(0, str(Path(__file__).parent.parent))
from loopdev import blkio_cgroup, fio_read_argv, loop_devices

pytestmark = pytest.mark.root  # each test skips itself where there is no throttle (loopdev.blkio_cgroup)

MIB = 1 << 20
DRIVE_BPS = 200 * MIB  # every "drive"
SLOW_BPS = 50 * MIB  # the slow one: a quarter of its peers


def fio_jobs(path: Path) -> dict[str, dict]:
    return {job["jobname"]: job for job in json.loads(path.read_text())["jobs"]}


def finish(fio, timeout: float) -> None:
    """Wait for fio and fail with its own message if it failed."""
    _, err = fio.communicate(timeout=timeout)
    assert fio.returncode == 0, f"fio exited {fio.returncode}: {err.decode(errors='replace')[-500:]}"


def _mean_read_bw(samples: list) -> dict[str, float]:
    """Each device's mean read bandwidth over the run, as the sampler measured it."""
    return {
        device: sum(values) / len(values)
        for device, (_, values) in series_by_source(samples, "disk.bw", "read").items()
    }


def run_watched(cgroup, devices, runtime_s, out: Path) -> list:
    """fio inside the cgroup, one job per device, with the Sampler around it."""
    with Sampler([d.name for d in devices], interfaces=[]) as sampler:
        fio = cgroup.popen(fio_read_argv(devices, runtime_s, str(out)), stderr=subprocess.PIPE)
        finish(fio, runtime_s + 30)
    return sampler.samples()


def test_outlier_analysis_names_the_throttled_loop_device(tmp_path):
    with loop_devices(6) as devs, blkio_cgroup() as cgroup:
        assert devices_for_path(devs[0].path) == [devs[0].name]
        for dev in devs:
            cgroup.set_read_bps(dev.major_minor, DRIVE_BPS)
        slow = devs[2]
        cgroup.set_read_bps(slow.major_minor, SLOW_BPS)
        samples = run_watched(cgroup, devs, 3, tmp_path / "slow.json")
        jobs = fio_jobs(tmp_path / "slow.json")

        report = find_outliers(_mean_read_bw(samples), view="together")
        print({s.device: (round(s.value / MIB), None if s.z is None else round(s.z, 1)) for s in report.scores})
        assert [s.device for s in report.outliers] == [slow.name]
        # The throttle really bit: fio itself saw the slow device at well under half its peers.
        peers = [jobs[d.name]["read"]["bw_bytes"] for d in devs if d is not slow]
        assert jobs[slow.name]["read"]["bw_bytes"] < 0.5 * min(peers)
        # Telemetry's bytes agree with fio's (diskstats counts what reached the device).
        times, rates = series_by_source(samples, "disk.bw", "read")[slow.name]
        seen = sum(r * (t - t0) for r, t, t0 in zip(rates, times, [0.0] + times[:-1], strict=True))
        assert seen == pytest.approx(jobs[slow.name]["read"]["io_bytes"], rel=0.05)

        cgroup.set_read_bps(slow.major_minor, DRIVE_BPS)
        samples = run_watched(cgroup, devs, 3, tmp_path / "even.json")
        report = find_outliers(_mean_read_bw(samples), view="together")
        print({s.device: round(s.value / MIB) for s in report.scores})
        assert report.evaluated and report.outliers == []


def test_dip_applied_mid_run_is_found_with_its_onset_and_depth(tmp_path):
    low_bps = 60 * MIB  # 70% below DRIVE_BPS
    applied_depth = 1 - low_bps / DRIVE_BPS
    with loop_devices(1) as (dev,), blkio_cgroup() as cgroup:
        cgroup.set_read_bps(dev.major_minor, DRIVE_BPS)
        with Sampler([dev.name], interfaces=[]) as sampler:
            fio = cgroup.popen(fio_read_argv([dev], 14, str(tmp_path / "dip.json")), stderr=subprocess.PIPE)
            time.sleep(5)
            cgroup.set_read_bps(dev.major_minor, low_bps)
            applied_onset = sampler.elapsed_ms() / 1000
            time.sleep(4)
            cgroup.set_read_bps(dev.major_minor, DRIVE_BPS)
            finish(fio, 60)
        times, values = series_by_source(sampler.samples(), "disk.bw", "read")[dev.name]
    report = detect_dips(times, values)
    print([round(v / MIB) for v in values], report.dips)
    assert len(report.dips) == 1
    (dip,) = report.dips
    assert dip.kind == "transient"
    assert abs(dip.onset_s - applied_onset) <= 2.0
    assert abs(dip.depth - applied_depth) <= 0.10
