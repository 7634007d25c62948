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


def test_a_device_s_counters_lose_their_idle_seconds_and_the_partial_second_beside_them():
    """The counters start with the sampler, before fio's first I/O: 0, 42, 208, ... MB/s (fio took a second to
    start on a loaded host). The 42 is a second I/O began inside, not a second of the drive's noise."""
    read = [0, 42, 208, 211, 189, 43, 53, 84, 210, 208, 211, 201, 0]
    times, values = active_seconds(_series(read, "loop1"))
    assert times[0] == 3.0 and values[0] == 208 * MB  # neither the idle 0 nor the partial 42
    assert times[-1] == 11.0 and values[-1] == 211 * MB  # the 201 where I/O ended, and the idle 0 after it, out
    times, _ = active_seconds(_series([0, 0, 126, 209, 211, 118, 53, 52, 145, 215, 210, 211, 121], "loop1"))
    assert times[0] == 4.0 and times[-1] == 12.0
