"""Rates from counters that were already running when the point began (issue 41: `bench/mutation.py --whole`
left these held by no fast test): a device's writes per second from a non-zero start, and a process seen at
both ends under its own name charged only what it spent in between."""

from __future__ import annotations

from iolab.telemetry.diskstats import DiskCounters, disk_rates
from iolab.telemetry.processes import _CLOCK_TICKS, ProcessTimes, other_cpu


def _disk(reads: int, sectors_read: int, writes: int, sectors_written: int, io_ms: int) -> DiskCounters:
    return DiskCounters(reads, sectors_read, 0, writes, sectors_written, 0, 1, io_ms, 2 * io_ms)


def test_each_direction_is_its_own_difference_over_the_seconds():
    rates = disk_rates(_disk(1000, 80_000, 500, 40_000, 100), _disk(3000, 280_000, 2500, 440_000, 1100), 2.0)
    assert rates is not None
    assert (rates.read_iops, rates.write_iops) == (1000.0, 1000.0)
    assert (rates.read_bytes_s, rates.write_bytes_s) == (100_000 * 512, 200_000 * 512)
    assert (rates.util_pct, rates.queue_depth) == (50.0, 1.0)


def test_writes_alone_going_backwards_is_a_reset_device_with_no_rates():
    assert disk_rates(_disk(10, 80, 500, 4000, 10), _disk(20, 160, 400, 8000, 20), 1.0) is None


def test_a_process_alive_at_both_ends_is_charged_only_what_it_spent_between():
    before = ProcessTimes({10: ("postgres", 5 * _CLOCK_TICKS), 11: ("cron", 3 * _CLOCK_TICKS)})
    # pid 11 was reused by another program: all of the new one's time is the point's
    after = ProcessTimes({10: ("postgres", 6 * _CLOCK_TICKS), 11: ("rsync", 4 * _CLOCK_TICKS)})
    assert other_cpu(before, after, 2.0) == {"postgres": 50.0, "rsync": 200.0}
