"""A run's timeline from hand-made samples: fio's per-second sum, each busy device, and the findings' dips and
steps on the run's clock.

The samples are built here, not measured, so every second, sum and dip position has a known answer and a
failure points at `views.timeline` rather than at fio or the sampler. The marks come from the run's findings
(the series rules run on the same samples), never from a detector of the timeline's own.
"""

from __future__ import annotations

import math

import pytest

from iolab.doctor.derived import point_series
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import Point, PointRecord, Run, Sample, Target
from iolab.models.sample_series import series_of
from iolab.views.timeline import FIO_SUM, Span, Timeline, run_timeline

MB = 1e6
RUN_START = 1_000_000.0


def _run() -> Run:
    return Run(1, RUN_START, "complete", "", "host", "iolab run", "fio-3.33", "0")


def _record(point_id: int, seq: int, offset_s: float | None, name: str | None = None) -> PointRecord:
    """A finished point that started `offset_s` after the run (None: never started)."""
    target = Target(path="/data", kind="directory", filename="/data/f", size_bytes=1 << 30, scratch=True)
    point = Point(name or f"p{seq}", target, {"rw": "read", "bs": "1m"})
    started = None if offset_s is None else RUN_START + offset_s
    return PointRecord(point_id, 1, seq, point, "ok", started_at=started)


def _timeline(records: list[PointRecord], samples: dict[int, list[Sample]]) -> Timeline:
    """The timeline with the findings the series rules make of the same samples (as the doctor sums them)."""
    series = point_series(records, {k: series_of(v) for k, v in samples.items()})
    return run_timeline(_run(), records, samples, evaluate(Context(series=series), series_rules()))


def series_rules():
    return [r for r in all_rules() if r.family == "telemetry"]


def _fio(per_second: list[float], jobs: tuple[str, ...] = ("job1", "job2"), ddir: str = "read") -> list[Sample]:
    """fio's bw log: each job logs an equal share, its 1 s windows ending a few ms off the second."""
    skew = {job: (-3, 4)[i % 2] for i, job in enumerate(jobs)}
    return [
        Sample("bw", ddir, job, second * 1000 + skew[job], value / len(jobs))
        for second, value in enumerate(per_second, start=1)
        for job in jobs
    ]


def _disk(device: str, per_second: list[float], ddir: str = "read") -> list[Sample]:
    return [Sample("disk.bw", ddir, device, second * 1000, value) for second, value in enumerate(per_second, start=1)]


def _flat(n: int, level: float = 500 * MB) -> list[float]:
    return [level] * n


def _with_dip(n: int, low_seconds: range, level: float = 500 * MB, low: float = 125 * MB) -> list[float]:
    """`n` seconds at `level`, the seconds in `low_seconds` (1-based interval ends) at `low`."""
    return [low if second in low_seconds else level for second in range(1, n + 1)]


def test_fio_jobs_are_summed_per_second_and_come_before_devices_sorted_by_name():
    samples = {1: _fio(_flat(10)) + _disk("nvme1n1", _flat(10)) + _disk("nvme0n1", _flat(10))}
    timeline = _timeline([_record(1, 1, 0.0)], samples)
    assert list(timeline.series) == [FIO_SUM, "nvme0n1", "nvme1n1"]
    times, values = timeline.series[FIO_SUM]
    assert times == [float(s) for s in range(1, 11)]  # job rows 3 ms early and 4 ms late land on one second
    assert values == [500 * MB] * 10  # two jobs of 250 MB/s each
    assert timeline.dips == {}
    assert not timeline.empty


def test_a_device_s_directions_are_added_into_one_series():
    samples = {1: _disk("sda", _flat(5, 300 * MB), "read") + _disk("sda", _flat(5, 200 * MB), "write")}
    timeline = _timeline([_record(1, 1, 0.0)], samples)
    assert timeline.series["sda"] == ([1.0, 2.0, 3.0, 4.0, 5.0], [500 * MB] * 5)


def test_a_device_that_moved_no_data_is_left_out():
    samples = {1: _fio(_flat(6)) + _disk("sda", _flat(6)) + _disk("sdb", [0.0] * 6)}
    timeline = _timeline([_record(1, 1, 0.0)], samples)
    assert list(timeline.series) == [FIO_SUM, "sda"]


def test_a_second_not_every_job_logged_is_left_out_of_the_fio_sum_rather_than_summed_short():
    samples = _fio(_flat(8))
    samples.append(Sample("bw", "read", "job1", 9004, 250 * MB))  # job1's partial last window, job2 had none
    timeline = _timeline([_record(1, 1, 0.0)], {1: samples})
    times, values = timeline.series[FIO_SUM]
    assert times[-1] == 8.0 and len(values) == 8


def test_read_and_write_of_a_mixed_job_are_one_fio_sum():
    samples = _fio(_flat(4, 300 * MB), ddir="read") + _fio(_flat(4, 100 * MB), ddir="write")
    timeline = _timeline([_record(1, 1, 0.0)], {1: samples})
    assert timeline.series[FIO_SUM][1] == [400 * MB] * 4


def test_a_dip_in_seconds_7_to_9_of_fio_s_sum_is_marked_from_6_s_to_9_s_with_its_depth():
    samples = {1: _fio(_with_dip(20, range(7, 10))) + _disk("sda", _flat(20))}
    timeline = _timeline([_record(1, 1, 0.0)], samples)
    assert timeline.dips == {FIO_SUM: [Span(6.0, 9.0, "dip, -75%")]}  # the device kept its pace


def test_points_are_laid_end_to_end_on_the_run_s_clock_with_a_break_between_them():
    records = [_record(2, 2, 30.0, "seq-write"), _record(1, 1, 0.0, "seq-read")]  # given out of order
    samples = {1: _fio(_flat(20)), 2: _fio(_flat(10, 200 * MB))}
    timeline = _timeline(records, samples)
    assert timeline.points == [Span(0.0, 20.0, "seq-read"), Span(30.0, 40.0, "seq-write")]
    times, values = timeline.series[FIO_SUM]
    gap = times.index(25.5)  # halfway between the last second of one point (20) and the first of the next (31)
    assert times[:gap] == [float(s) for s in range(1, 21)]
    assert times[gap + 1 :] == [float(s) for s in range(31, 41)]
    assert math.isnan(values[gap])
    assert values[:gap] == [500 * MB] * 20 and values[gap + 1 :] == [200 * MB] * 10


def test_a_dip_in_the_second_point_is_moved_by_that_point_s_start():
    records = [_record(1, 1, 0.0), _record(2, 2, 40.0)]
    samples = {1: _fio(_flat(30)), 2: _fio(_with_dip(30, range(7, 10)))}
    (dip,) = _timeline(records, samples).dips[FIO_SUM]
    assert (dip.start_s, dip.end_s) == (46.0, 49.0)


def test_a_slower_next_workload_is_a_new_baseline_not_a_step():
    """Dips are looked for within each point: a second point at a quarter of the first's pace is no event."""
    records = [_record(1, 1, 0.0), _record(2, 2, 21.0)]
    samples = {1: _fio(_flat(20, 800 * MB)), 2: _fio(_flat(20, 200 * MB))}
    timeline = _timeline(records, samples)
    assert timeline.dips == {}
    assert len(timeline.series[FIO_SUM][0]) == 40  # 2 s apart at the seam (20 s, 22 s): no break inserted


def test_a_lasting_step_inside_one_point_is_marked_to_the_last_second_the_finding_judged():
    values = [600 * MB] * 10 + [250 * MB] * 10
    timeline = _timeline([_record(1, 1, 5.0)], {1: _fio(values)})
    (step,) = timeline.dips[FIO_SUM]
    assert step.label == "step, -58%"
    assert (step.start_s, step.end_s) == pytest.approx((15.0, 24.0))  # the rules leave out the partial last second


def test_an_array_run_s_timeline_marks_exactly_the_findings_events():
    """Issue 41: an array run's page marked 9 dips (a point's last second, a noisy device's step) where the findings
    named one device's dip. Five devices with noise, each point's last second short, one real dip on loop3, and
    loop4 so noisy that TEL-DIP says what it could not see (a finding with no event): the marks are the findings'
    events, one for one, and the chart draws one shaded band per mark."""
    import numpy as np

    from iolab.report.charts import timeline_chart

    rng = np.random.default_rng(41)
    target = Target(path="/dev/md0", kind="group", filename="/dev/md0", size_bytes=1 << 30)
    records = [
        PointRecord(
            k,
            1,
            k,
            Point(f"seqread-{k}", target, {"rw": "read", "bs": "1m"}),
            "ok",
            started_at=RUN_START + 40.0 * (k - 1),
        )
        for k in (1, 2)
    ]
    samples: dict[int, list[Sample]] = {}
    for k in (1, 2):
        samples[k] = _fio(_flat(30, 1000 * MB))
        for d in range(5):
            values = list(200 * MB * (1 + (0.08, 0.35)[d == 4] * rng.standard_normal(30)).clip(0.05))
            values[-1] *= 0.3  # the point's partial last second
            if (k, d) == (2, 3):
                values[12:18] = [0.2 * v for v in values[12:18]]
            samples[k] += _disk(f"loop{d}", values)
    series = point_series(records, {k: series_of(v) for k, v in samples.items()})
    findings = evaluate(Context(series=series), series_rules())
    timeline = run_timeline(_run(), records, samples, findings)
    events = sorted(
        (f.subject, float(f.evidence["onset"].removesuffix(" s")))
        for f in findings
        if f.rule_id in ("TEL-DIP", "TEL-STEP") and "onset" in f.evidence
    )
    assert events == [("seqread-2: loop3 read", 12.0)]
    assert any(f.subject.endswith("loop4 read") and "onset" not in f.evidence for f in findings)
    marks = [(name, span.start_s) for name, spans in timeline.dips.items() for span in spans]
    assert marks == [("loop3", 40.0 + 12.0)]
    figure = timeline_chart(timeline)
    shaded = [p for ax in figure.axes for p in ax.patches if p.get_facecolor()[:3] != (0.0, 0.0, 0.0)]
    assert len(shaded) == len(marks)


def test_points_that_never_started_or_have_no_samples_are_not_on_the_timeline():
    records = [_record(1, 1, None), _record(2, 2, 10.0), _record(3, 3, 30.0)]
    samples = {1: _fio(_flat(5)), 3: _fio(_flat(5))}  # point 2 started but stored nothing
    timeline = _timeline(records, samples)
    assert [span.label for span in timeline.points] == ["p3"]
    assert timeline.series[FIO_SUM][0] == [31.0, 32.0, 33.0, 34.0, 35.0]


def test_a_run_without_samples_is_an_empty_timeline():
    timeline = _timeline([_record(1, 1, 0.0)], {})
    assert timeline.empty and timeline.points == [] and timeline.dips == {}
