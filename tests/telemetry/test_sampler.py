"""The Sampler on the live host: ticks, units, and errors a user can cause."""

import os
import time

import pytest

from iolab.analysis.series import series_by_source
from iolab.errors import UserError
from iolab.telemetry import Sampler, devices_for_path
from iolab.telemetry.diskstats import parse_diskstats


def any_disk() -> str:
    with open("/proc/diskstats") as f:
        return next(iter(parse_diskstats(f.read())))


def test_ticks_cpu_and_disk_series():
    disk = any_disk()
    with Sampler([disk], interval_s=0.1) as sampler:
        deadline = time.monotonic() + 0.55
        while time.monotonic() < deadline:  # keep a CPU busy so usr shows up
            pass
    samples = sampler.samples()
    times, busy = series_by_source(samples, "cpu.busy", "total")["cpu"]
    # Tick timing depends on host load, so only order and span are checked, not spacing.
    assert len(times) >= 3 and times == sorted(set(times))
    assert 0.5 <= times[-1] <= 2.0  # the last interval ends at stop(), ~0.55 s in
    assert all(0.0 <= b <= 100.0 for b in busy) and max(busy) > 0
    assert series_by_source(samples, "disk.bw", "read")[disk][1]
    assert {s.source for s in samples if s.metric == "cpu.usr"} >= {"cpu", "cpu0"}
    assert {"rx", "tx"} <= {s.ddir for s in samples if s.metric == "net.bw" and s.source == "lo"}


def test_user_errors():
    with pytest.raises(UserError, match="too short"):
        Sampler(interval_s=0.01)
    with pytest.raises(UserError, match="no such block device"):
        with Sampler(["no-such-disk"]):
            pass
    with pytest.raises(UserError, match="no such file"):
        devices_for_path("/no/such/path")


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm tmpfs on this host")
def test_tmpfs_has_no_device_to_watch():
    assert devices_for_path("/dev/shm") == []
