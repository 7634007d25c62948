"""One summing of fio's per-job logs, read by the timeline, the tables and the doctor alike.

The timeline once summed jobs per second and dropped the seconds some jobs did not log, while the doctor
summed per window and kept them: a job that stopped early was a step in the findings and nothing on the
page. The real logs here (tests/data/fio/generate-dip.sh) are three jobs held to 20 MiB/s on one loop
device throttled to 12 MiB/s for 5 s, the third job stopping 5 s before the others.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from iolab.analysis.series import job_bandwidth, job_sum
from iolab.analysis.stability import summarize
from iolab.doctor.derived import point_series
from iolab.doctor.engine import diagnose_run
from iolab.fio.logs import read_logs
from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, PointRecord, Run, Target
from iolab.models.material import RunMaterial
from iolab.models.sample_series import SampleSeries, samples_of
from iolab.views.columns import within_run_bw_stddev
from iolab.views.timeline import FIO_SUM, run_timeline

DIP_LOGS = Path(__file__).parents[1] / "data" / "fio" / "logs-dip"
KIB = 1024
START = 1_000_000.0
TARGET = Target(path="/dev/loop0", kind="block", filename="/dev/loop0", size_bytes=512 << 20)


def _record(point_id: int = 1) -> PointRecord:
    entries = [e for g in parse_output((DIP_LOGS / "dip.json").read_text()).groups for e in g.entries]
    point = Point("dip", TARGET, {"rw": "randread", "bs": "64k", "numjobs": "2"})
    return PointRecord(point_id, 1, 1, point, "ok", result=aggregate(entries, "fio-3.33"), started_at=START)


def _run() -> Run:
    return Run(1, START, "complete", "", "host", "iolab run", "fio-3.33", "0")


def _timeline_and_findings(series: list[SampleSeries]):
    record = _record()
    findings = diagnose_run(RunMaterial(records=[record], series={1: series}))
    timeline = run_timeline(_run(), [record], {1: samples_of(series)}, findings)
    return timeline, [f for f in findings if f.rule_id in ("TEL-DIP", "TEL-STEP") and "all jobs" in f.subject]


def test_the_timeline_marks_the_dip_the_findings_report_and_no_step_where_a_job_stopped_early():
    series = read_logs(DIP_LOGS, "point")
    timeline, findings = _timeline_and_findings(series)
    marks = timeline.dips.get(FIO_SUM, [])
    assert [f.rule_id for f in findings] == ["TEL-DIP"]  # the throttled seconds; the third job's end is no step
    assert len(marks) == 1 and marks[0].label.startswith("dip")
    onset = float(findings[0].evidence["onset"].removesuffix(" s"))
    assert abs(marks[0].start_s - onset) <= 1.0  # the doctor judges the series without its first window
    assert 9.0 <= onset <= 11.0  # the throttle came down 10 s into the run


def test_the_windows_only_two_of_three_jobs_logged_are_left_out_everywhere():
    series = read_logs(DIP_LOGS, "point")
    times, values = job_sum(series)
    assert [round(t) for t in times] == list(range(1, 30))  # job 3 logged 1..29 s, jobs 1 and 2 on to 39 s
    three = [sum(v[i] for v in (_kib(1), _kib(2), _kib(3))) for i in range(29)]
    assert values == pytest.approx(three)
    (doctor,) = point_series([_record()], {1: series})
    assert (doctor.times_s, doctor.values) == (times, values)
    timeline, _ = _timeline_and_findings(series)
    assert timeline.series[FIO_SUM] == (times, values)
    assert within_run_bw_stddev(samples_of(series), "read") == pytest.approx(summarize(values).stddev)


def _kib(job: int) -> list[float]:
    rows = (DIP_LOGS / f"point_bw.{job}.log").read_text().splitlines()
    return [int(row.split(",")[1]) * KIB for row in rows]


def _jobs(rng: random.Random) -> tuple[list[SampleSeries], dict[int, float]]:
    """Jobs logging windows of one interval, each with its own skew, drift, first and last window; and the
    sum expected in each window every job logged."""
    interval = rng.choice([250, 500, 1000])
    count = rng.randint(1, 5)
    jobs: list[SampleSeries] = []
    per_window: dict[int, list[float]] = {}
    for job in range(1, count + 1):
        first, last = rng.randint(1, 4), rng.randint(20, 30)
        skew, drift = rng.randint(-interval // 10, interval // 10), rng.uniform(0, 0.002)
        windows = list(range(first, last + 1))
        times = [round(k * interval * (1 + drift)) + skew for k in windows]
        values = [rng.uniform(1e6, 1e8) for _ in windows]
        for ddir in rng.choice([("read",), ("write",), ("read", "write")]):
            jobs.append(SampleSeries("bw", ddir, f"job{job}", np.array(times), np.array(values)))
            for k, v in zip(windows, values, strict=True):
                per_window.setdefault(k, [0.0] * count)[job - 1] += v
    every = {k: math.fsum(v) for k, v in per_window.items() if all(v)}
    return jobs, every


@pytest.mark.parametrize("seed", range(200))
def test_each_window_every_job_logged_is_its_jobs_summed_and_no_other_window_is_there(seed):
    """Any skew, drift, interval, job count, direction and start or end: the sum is right, and the
    timeline, the doctor and the tables' spread read exactly that sum."""
    rng = random.Random(seed)
    jobs, every = _jobs(rng)
    times, values = job_sum(jobs)
    assert len(times) == len(every)
    assert values == pytest.approx([every[k] for k in sorted(every)])
    assert times == sorted(times)
    assert list(job_bandwidth(jobs)) == [""]
    (doctor,) = point_series([_record()], {1: jobs})
    assert (doctor.times_s, doctor.values) == (times, values)
    timeline = run_timeline(_run(), [_record()], {1: samples_of(jobs)}, [])
    assert timeline.series[FIO_SUM] == (times, values)  # windows 250 ms apart: no gap the timeline breaks at
