"""The per-second series the doctor judges, from fio's per-job logs stored as columns."""

from __future__ import annotations

import numpy as np

from iolab.doctor.derived import point_series
from iolab.models import Point, PointRecord, Target
from iolab.models.sample_series import SampleSeries

TARGET = Target(path="/dev/x", kind="block", filename="/dev/x", size_bytes=1 << 30)


def _record() -> PointRecord:
    return PointRecord(1, 1, 1, Point("randread", TARGET, {"rw": "randread", "numjobs": "2"}), "ok")


def _bw(source: str, times: list[int], value: float) -> SampleSeries:
    return SampleSeries("bw", "read", source, np.array(times), np.full(len(times), value))


def test_jobs_stamping_their_windows_a_few_ms_apart_are_added_per_window():
    """fio 3.1 with log_avg_msec=250: one job writes 250, 500..., the next 249, 498...; each window is both jobs."""
    first = _bw("job1", [250 * k for k in range(1, 9)], 100.0)
    second = _bw("job2", [249 * k for k in range(1, 9)], 50.0)
    (series,) = point_series([_record()], {1: [first, second]})
    assert series.label == "all jobs"
    assert series.values == [150.0] * 8
    assert series.times_s == [250 * k / 1000 for k in range(1, 9)]  # each window dated by its nominal end


def test_jobs_stamping_alike_keep_their_times_and_hosts_stay_apart():
    times = [1000 * k for k in range(1, 8)]
    logs = [_bw("job1", times, 1.0), _bw("job2", times, 2.0), _bw("h2:job1", times, 5.0)]
    by_label = {s.label: s for s in point_series([_record()], {1: logs})}
    assert by_label["all jobs"].times_s == [float(k) for k in range(1, 8)] and by_label["all jobs"].values == [3.0] * 7
    assert by_label["h2 all jobs"].values == [5.0] * 7
