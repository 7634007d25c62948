"""The seconds the dip rules and a point's noise read (`doctor.derived.active_seconds`): the seconds with I/O,
without the partial ones where it began and ended, wherever those fall."""

from __future__ import annotations

from iolab.doctor.derived import PointSeries, active_seconds

MB = 1e6


def _series(values: list[float], device: str | None = None) -> PointSeries:
    return PointSeries(
        "p",
        "loop1 read" if device else "all jobs",
        [float(t) for t in range(1, len(values) + 1)],
        [v * MB for v in values],
        device,
    )


def test_fio_s_own_log_loses_only_its_partial_first_and_last_samples():
    times, values = active_seconds(_series([84, 210, 209, 211, 208, 210, 63]))
    assert times == [2.0, 3.0, 4.0, 5.0, 6.0] and values == [v * MB for v in (210, 209, 211, 208, 210)]


def test_fio_s_own_log_keeps_a_stall_in_its_first_whole_seconds():
    """fio's log starts with its job's I/O (a window in which nothing completed is not logged), so seconds at 6-7%
    of the level after its partial first sample are a cold start the run had, a dip from its first whole second;
    a device's counters with the same seconds start idle with the sampler, and those go. (bench/dips_edges.py:
    a dip 85% deep or more starting in the first window was cut away whole or to one second, 57 of 114 missed.)"""
    read = [5, 12, 15, 210, 209, 211, 208, 210, 63]
    times, values = active_seconds(_series(read))
    assert times[0] == 2.0 and values[:2] == [12 * MB, 15 * MB] and times[-1] == 8.0
    times, _ = active_seconds(_series(read, "loop1"))
    assert times[0] == 5.0  # the device's: the low lead is idle, the 210 after it the partial second


def test_a_device_s_counters_lose_their_idle_seconds_and_the_partial_second_beside_them():
    """The counters start with the sampler, before fio's first I/O: 0, 42, 208, ... MB/s (fio took a second to
    start on a loaded host). The 42 is a second I/O began inside, not a second of the drive's noise."""
    read = [0, 42, 208, 211, 189, 43, 53, 84, 210, 208, 211, 201, 0]
    times, values = active_seconds(_series(read, "loop1"))
    assert times[0] == 3.0 and values[0] == 208 * MB  # neither the idle 0 nor the partial 42
    assert times[-1] == 11.0 and values[-1] == 211 * MB  # the 201 where I/O ended, and the idle 0 after it, out
    times, _ = active_seconds(_series([0, 0, 126, 209, 211, 118, 53, 52, 145, 215, 210, 211, 121], "loop1"))
    assert times[0] == 4.0 and times[-1] == 12.0


def test_whatever_the_idle_lead_and_the_partial_seconds_only_whole_seconds_of_i_o_are_read():
    """Generated: 0-3 idle seconds, a second part-way busy (any share), 6-20 whole seconds with noise, another part-way
    second, 0-3 idle ones. Every second read is a whole one, and at most one whole second is lost at either end (a
    part-way second under the idle floor reads as idle, and the whole second after it is taken for the partial)."""
    import numpy as np

    rng = np.random.default_rng(54)
    for _ in range(500):
        lead, trail, whole = int(rng.integers(0, 4)), int(rng.integers(0, 4)), int(rng.integers(6, 21))
        full = list(200 * (1 + 0.05 * rng.standard_normal(whole)))
        read = [0.0] * lead + [200 * rng.uniform(0.01, 0.99)] + full + [200 * rng.uniform(0.01, 0.99)] + [0.0] * trail
        times, _ = active_seconds(_series(read, "loop1"))
        wholes = [float(t) for t in range(lead + 2, lead + 2 + whole)]  # `_series` dates sample i at i + 1
        assert times and set(times) <= set(wholes), (read, times)
        assert times[0] - wholes[0] <= 1 and wholes[-1] - times[-1] <= 1, (read, times)
