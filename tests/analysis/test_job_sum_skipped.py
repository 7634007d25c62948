"""Windows fio skipped in one job's log: summed, they are neither a fall nor a shift of the time axis.

fio computes a job's rate when its helper looks, over the time since the last look (stat.c `__add_samples`),
so a look a window late writes one row for two windows holding their average rate. fio-plot's quarter-second
traces skip one window in 5-40 per job; left out of the sum, a 2 s dip beside such a window held 1.75 s of low
windows and was missed (issue 40). Here jobs log a known rate per window, each skipping windows at random as
fio does (the next row the average over the skipped window and its own), a dip planted across and beside the
skips; the sum keeps every window some job logged, its bytes are the jobs' bytes, and the dip is found where
it was planted. A window no job logged (a device that stopped: fio logs nothing for a look with no bytes)
stays a gap, dated where it was.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from iolab.analysis.dips import detect_dips
from iolab.analysis.series import job_sum
from iolab.models.sample_series import SampleSeries

INTERVAL_MS = 250


def _jobs(rng: random.Random, rates: np.ndarray, skip: float) -> list[SampleSeries]:
    """Each job logging `rates` (its share, per window 1..n) with fio's late looks: a skipped window's rate is
    averaged into the next row. A job never skips its first or last window (its span is what it logged); the
    first job skips none, so every window has a row of some job."""
    jobs = []
    count = rng.randint(2, 8)
    for job in range(1, count + 1):
        share = rates * rng.uniform(0.5, 1.5) / count
        times, values, pending = [], [], []
        for k in range(1, len(rates) + 1):
            pending.append(share[k - 1])
            if 1 < k < len(rates) and job > 1 and rng.random() < skip:  # job 1 logs all: no window is a gap
                continue
            times.append(k * INTERVAL_MS + rng.randint(-2, 1))  # stamps a ms or two off, as fio-plot's
            values.append(float(np.mean(pending)))
            pending = []
        jobs.append(SampleSeries("bw", "read", f"job{job}", np.array(times), np.array(values)))
    return jobs


@pytest.mark.parametrize("seed", range(20))
def test_a_dip_beside_windows_a_job_skipped_is_found_where_it_was_planted(seed):
    rng = random.Random(seed)
    n = 4 * rng.randint(30, 120)  # 30-120 s of quarter-second windows
    rates = 4e8 * (1.0 + 0.02 * np.array([rng.gauss(0, 1) for _ in range(n)]))
    first, length = rng.randint(20, n - 40), 4 * rng.randint(2, 5)  # a 2-5 s dip, 60-90% deep
    rates[first : first + length] *= 1.0 - rng.uniform(0.6, 0.9)
    jobs = _jobs(rng, rates, skip=rng.uniform(0.025, 0.1))  # one window in 10-40, as fio-plot's traces
    times, values = job_sum(jobs)
    dips = [d for d in detect_dips(times, values).dips if d.kind == "transient"]
    assert len(dips) == 1
    assert abs(dips[0].onset_s - first * INTERVAL_MS / 1000) <= 0.25
    assert abs(dips[0].duration_s - length * INTERVAL_MS / 1000) <= 0.25
    step = times[0]  # windows are dated by number x the jobs' median interval
    assert times == pytest.approx([k * step for k in range(1, n + 1)])  # every window, in its place
    assert step == pytest.approx(INTERVAL_MS / 1000, abs=0.002)
    bytes_logged = sum(float(np.sum(np.diff(np.concatenate(([0], j.t_ms))) * j.values)) for j in jobs)
    assert sum(values) * INTERVAL_MS == pytest.approx(bytes_logged, rel=0.02)


def test_a_window_no_job_logged_stays_a_gap_dated_where_it_was():
    rates = np.full(40, 4e8)
    jobs = [
        SampleSeries("bw", "read", f"job{j}", np.array([k * INTERVAL_MS for k in range(1, 41) if k != 17]), rates[:39])
        for j in (1, 2)
    ]
    times, values = job_sum(jobs)
    assert [round(t * 1000) for t in times] == [k * INTERVAL_MS for k in range(1, 41) if k != 17]
    assert values == pytest.approx([8e8] * 39)


def test_a_dip_across_a_window_no_job_logged_keeps_its_onset_and_length():
    """The gap inside a dip is low time between low windows (analysis.dips), and the time axis is not closed up."""
    rates = np.full(80, 4e8)
    rates[30:38] *= 0.2  # windows 31-38: 7.5-9.5 s, a 2 s dip
    jobs = [
        SampleSeries(
            "bw", "read", f"job{j}", np.array([k * INTERVAL_MS for k in range(1, 81) if k != 34]), np.delete(rates, 33)
        )
        for j in (1, 2)
    ]
    times, values = job_sum(jobs)
    assert 8.5 not in times and times[33] == 8.75
    (dip,) = detect_dips(times, values).dips
    assert (dip.onset_s, dip.duration_s) == (7.5, 2.0)
