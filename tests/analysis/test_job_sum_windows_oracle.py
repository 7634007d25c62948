"""analysis/series.job_sum against a plain reading of its rule over generated logs: each job's rows fall in
windows of its own median interval (rounded), rows of one job in one window are averaged, the jobs' means are
added, a window only some jobs logged is left out, and a window is dated by its number times the median
interval of all jobs. A per-I/O log (rows closer than PER_IO_MS = 2 ms) is taken in 1 s windows; a log at
exactly 2 ms is not per I/O. Issue 41: the per-I/O branch ran under no fast test."""

from __future__ import annotations

import random
import statistics

import numpy as np
import pytest

from iolab.analysis.series import PER_IO_MS, job_sum
from iolab.models.sample_series import SampleSeries


def _log(source: str, times: list[int], values: list[float]) -> SampleSeries:
    return SampleSeries("bw", "read", source, np.array(times, dtype=np.int64), np.array(values, dtype=np.float64))


def oracle(members: list[SampleSeries]) -> tuple[list[float], list[float]]:
    members = [m for m in members if len(m)]
    own = [statistics.median(np.diff(np.sort(m.t_ms)).tolist()) if len(m) > 1 else 0.0 for m in members]
    known = [w for w in own if w > 0]
    interval = statistics.median(known) if known else 0.0
    if interval < 2:
        interval, own = 1000.0, [1000.0] * len(members)
    per_job = []
    for member, width in zip(members, own, strict=True):
        windows: dict[int, list[float]] = {}
        for t, v in zip(member.t_ms.tolist(), member.values.tolist(), strict=True):
            windows.setdefault(int(np.rint(t / (width or interval))), []).append(v)
        per_job.append({k: sum(vs) / len(vs) for k, vs in windows.items()})
    common = sorted(set.intersection(*(set(w) for w in per_job))) if per_job else []
    step = float(np.rint(interval))
    return [k * step / 1000 for k in common], [sum(w[k] for w in per_job) for k in common]


def _jobs(rng: random.Random) -> list[SampleSeries]:
    interval = rng.choice([1, 2, 3, 500, 1000])
    out = []
    for job in range(rng.randint(1, 4)):
        start, count = rng.randint(0, 3) * interval, rng.randint(1, 30)
        times = sorted(start + i * interval + rng.randint(0, max(0, interval // 50)) for i in range(count))
        out.append(_log(f"job{job}", times, [rng.uniform(1e6, 1e8) for _ in times]))
    return out


def test_the_jobs_summed_per_window_are_the_rule_read_plainly():
    rng = random.Random(41)
    for _ in range(80):
        members = _jobs(rng)
        times, values = job_sum(members)
        expected_times, expected_values = oracle(members)
        assert times == pytest.approx(expected_times) and values == pytest.approx(expected_values)


def test_per_io_rows_are_averaged_in_one_second_windows_and_two_ms_rows_are_not():
    assert PER_IO_MS == 2
    # two jobs, per-I/O rows 1 ms apart: windows of 1 s, each job's rows averaged, the jobs added
    one = _log("job1", [999, 1000, 1001, 1999, 2000], [10.0, 20.0, 30.0, 40.0, 50.0])
    two = _log("job2", [1000, 1001, 2000, 2001], [1.0, 3.0, 5.0, 7.0])
    assert job_sum([one, two]) == ([1.0, 2.0], [20.0 + 2.0, 45.0 + 6.0])
    # rows 2 ms apart are windows of 2 ms
    assert job_sum([_log("job1", [2, 4, 6], [1.0, 2.0, 3.0])]) == ([0.002, 0.004, 0.006], [1.0, 2.0, 3.0])
    assert job_sum([]) == ([], []) and job_sum([_log("job1", [], [])]) == ([], [])
