"""perf's counts as a time series (`perf stat -I`), summed over fio's measured seconds only.

Before, perf counted from the end of the ramp on its own clock until iolab stopped it: fio's start-up (its file
layout, its own set-up) and the tail after its last I/O were in every count, and cycles per I/O were divided by
perf's duration. The window is now cut from the intervals (`Counted.over`), a partial interval by its share, and
perf's zero is placed on the wall clock where the samplers' is read (`counting_zero_ms`). The CSV read here is
real perf 6.1's (tests/data/perf/generate.py, recorded on 2 CPUs).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from iolab.telemetry.perf import Counted, Interval, counting_zero_ms, parse_interval_csv

DATA = Path(__file__).resolve().parents[1] / "data" / "perf"
RECORDED_CPUS = 2  # tests/data/perf/generate.py's host: cpu-clock -a counts 2,000 ms a second there
HARDWARE = ("cycles", "cache-references", "cache-misses")


def _read(name: str) -> list[Interval]:
    return parse_interval_csv((DATA / name).read_text())


def test_real_intervals_follow_each_other_from_perf_s_zero_and_keep_what_it_could_not_count_as_none():
    intervals = _read("interval-sleep.csv")
    assert len(intervals) == 10 and intervals[0].start_s == 0.0
    assert all(a.end_s == b.start_s for a, b in zip(intervals, intervals[1:], strict=False))
    for interval in intervals:
        assert set(interval.counts) == {*HARDWARE, "cpu-clock", "duration_time"}
        assert all(interval.counts[event] is None for event in HARDWARE)  # `<not supported>` on this VM
        # perf's own duration_time (ns) is the interval's length: an interval starts where the one before ended
        length_ns = (interval.end_s - interval.start_s) * 1e9
        assert interval.counts["duration_time"] == pytest.approx(length_ns, rel=1e-3, abs=1e3)


def test_a_stopped_perf_s_last_interval_is_the_short_one_it_stamped_on_the_signal():
    intervals = _read("interval-sigint.csv")
    lengths = [i.end_s - i.start_s for i in intervals]
    assert len(intervals) == 4 and lengths[:-1] == pytest.approx([0.25] * 3, abs=0.01)  # INTERVAL_MS
    assert 0 < lengths[-1] < 0.25
    assert all(i.counts["context-switches"] for i in intervals)


@pytest.mark.parametrize("name", ["interval-sleep.csv", "interval-sigint.csv"])
def test_cpu_clock_over_any_window_is_every_cpu_s_time_in_it(name):
    """cpu-clock -a counts each CPU's clock, busy or idle: over a window of the real series it is 2 CPUs x its
    length wherever the window's edges cut an interval. Counting cut intervals whole, or perf's whole run, fails."""
    intervals = _read(name)
    counted = Counted(tuple(intervals), zero_ms=1_000.0, launched_ms=900.0)
    end_s = intervals[-1].end_s
    rng = random.Random(59)
    for _ in range(200):
        start = rng.uniform(0.0, end_s - 0.35)
        stop = rng.uniform(start + 0.3, end_s)
        counts, seconds = counted.over(1_000.0 + start * 1000, 1_000.0 + stop * 1000)
        assert seconds == pytest.approx(stop - start)
        assert counts["cpu-clock"] == pytest.approx(RECORDED_CPUS * 1000 * (stop - start), rel=0.04), (start, stop)
        assert all(counts[event] is None for event in HARDWARE)


def _burst_around(rng: random.Random, window: tuple[float, float], rate: float) -> list[Interval]:
    """Intervals of jittered lengths over 0-12 s counting `rate` a second, except those wholly before or after
    `window`, which count bursts of 1,000 times that (fio's layout and set-up, its tail)."""
    intervals, t = [], 0.0
    while t < 12.0:
        length = rng.uniform(0.05, 0.6)
        outside = t + length <= window[0] or t >= window[1]
        per_s = rate * (1000 if outside and rng.random() < 0.7 else 1)
        counts: dict[str, float | None] = {"cycles": per_s * length, "page-faults": None if outside else 3.0}
        intervals.append(Interval(t, t + length, counts))
        t += length
    return intervals


def test_only_the_window_s_seconds_are_counted_whatever_perf_counted_around_them():
    """Generated: bursts in every interval outside fio's measured seconds must not enter, the intervals the window
    cuts count by their share, and the rates are over the window's own length. An event perf could not count
    outside the window (None) does not spoil the count inside it."""
    rng = random.Random(4059)
    for case in range(300):
        start = rng.uniform(0.5, 5.0)
        window = (start, start + rng.uniform(0.2, 6.0))
        rate = rng.uniform(1e6, 1e9)
        zero = rng.uniform(1e12, 2e12)  # perf's zero on the wall clock, in ms
        counted = Counted(tuple(_burst_around(rng, window, rate)), zero, zero - 80)
        counts, seconds = counted.over(zero + window[0] * 1000, zero + window[1] * 1000)
        length = window[1] - window[0]
        assert seconds == pytest.approx(length, abs=1e-6), case  # epoch ms in a float: some 0.2 µs
        assert counts["cycles"] == pytest.approx(rate * length, rel=1e-6), (case, window)
        assert counts["page-faults"] is not None


def test_an_event_missing_inside_the_window_is_not_counted_and_no_overlap_counts_nothing():
    intervals = (
        Interval(0.0, 1.0, {"cycles": 10.0}),
        Interval(1.0, 2.0, {"cycles": None}),  # `<not counted>` in one interval: a sum with a hole
        Interval(2.0, 3.0, {"cycles": 10.0}),
    )
    counted = Counted(intervals, zero_ms=0.0, launched_ms=0.0)
    assert counted.over(500, 2500) == ({"cycles": None}, 2.0)
    assert counted.over(2000, 3000) == ({"cycles": 10.0}, 1.0)
    assert counted.over(3000, 9000) == ({}, 0.0)  # fio's seconds after perf's last interval


def test_perf_s_zero_is_its_stop_less_its_last_stamp_never_before_its_launch():
    intervals = [Interval(0.0, 0.25, {}), Interval(0.25, 1.4, {})]
    assert counting_zero_ms(1_000.0, intervals, 2_500.0) == pytest.approx(1_100.0)  # 100 ms after the launch
    assert counting_zero_ms(1_000.0, intervals, 2_300.0) == 1_000.0  # a stamp longer than its run: the launch
    assert counting_zero_ms(1_000.0, intervals, None) == 1_000.0  # ended otherwise: the last stamp says nothing
    assert counting_zero_ms(1_000.0, [], 2_500.0) == 1_000.0
