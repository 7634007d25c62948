"""fio's clock and the samplers' are one clock on every page: a device's dip is dated where fio's sum dates it.

The samplers start just before fio and fio's logs after its start-up and ramp, so a device's second k is fio's
second k - start-up - ramp (`PointRecord.measured_from_ms`; the start-up as the runner stores it, FIO_START). Read on the samplers' clock, a device's dip was dated `ramp` seconds
late against the same dip in fio's sum, its ramp seconds counted as the measured run's noise (a warm-up read as
a dip), and the timeline drew the two lines `ramp` seconds apart. Generated over start-ups of 0-2 s, ramps of 0-5 s, runs of 16-40 s
and dips anywhere in them: the doctor dates the device's dip and the sum's alike, at the planted second, nothing
is found in the ramp, and the timeline marks both at the same second of the run.
Interference (other I/O on the target's devices) is read over the same measured seconds, never fio's
own layout in its start-up.
"""

from __future__ import annotations

import random

from iolab.doctor.derived import point_series
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import DirectionResult, Point, PointMetric, PointRecord, Result, Run, Sample, Target
from iolab.models.sample_series import series_of
from iolab.models.side import FIO_START
from iolab.views.timeline import FIO_SUM, run_timeline

MB = 1e6
RUN_START = 1_000_000.0
TARGET = Target(path="loop0+loop1", kind="group", filename="", size_bytes=1 << 30, members=("/dev/loop0", "/dev/loop1"))


def _onsets(findings, kind: str = "TEL-DIP") -> dict[str, float]:
    return {
        f.subject.partition(": ")[2]: float(f.evidence["onset"].removesuffix(" s"))
        for f in findings
        if f.rule_id == kind and "onset" in f.evidence
    }


def test_a_device_s_dip_is_dated_on_fio_s_clock_whatever_the_ramp():
    rng = random.Random(56)
    rules = [r for r in all_rules() if r.family == "telemetry"]
    for case in range(120):
        ramp = rng.choice([0, 1, 2, 3, 5])
        startup = rng.choice([0, 0, 1, 2])  # fio's start-up, as the runner stores it (FIO_START)
        seconds = rng.randint(16, 40)
        length = rng.randint(3, 5)
        onset = rng.randint(3, seconds - length - 5)  # inside the detector's envelope: the clock is the subject
        point = Point("seqread-together", TARGET, {"rw": "read", "bs": "1m", "ramp_time": str(ramp)})
        result = Result({"read": DirectionResult("read", 4e8, 400.0, 10**6, 10**10, 10_000)}, 5.0, 5.0, 2, "fio-3.33")
        metrics = {FIO_START: PointMetric(FIO_START, startup * 1000.0)}
        record = PointRecord(1, 1, 1, point, "ok", result=result, started_at=RUN_START + 10.0, metrics=metrics)

        def level(second: int, onset: int = onset, length: int = length) -> float:  # on fio's clock
            return 0.1 if onset < second <= onset + length else 1.0  # the slow device's share in that second

        samples = []
        for t in range(1, startup + ramp + seconds + 1):  # the samplers' seconds: idle, then a ramp at 40%
            fio_second = t - startup - ramp
            warm = 0.0 if t <= startup else 0.4 if fio_second <= 0 else 1.0
            noise = [1 + 0.01 * rng.uniform(-1, 1) for _ in range(2)]
            slow = 200 * MB * warm * (level(fio_second) if fio_second > 0 else 1.0) * noise[0]
            samples += [Sample("disk.bw", "read", "loop0", t * 1000, slow)]
            samples += [Sample("disk.bw", "read", "loop1", t * 1000, 200 * MB * warm * noise[1])]
            if fio_second > 0:
                total = 200 * MB * (level(fio_second) + 1.0) * (1 + 0.01 * rng.uniform(-1, 1))
                samples += [Sample("bw", "read", "job1", fio_second * 1000, total)]
        series = point_series([record], {1: series_of(samples)})
        findings = evaluate(Context(series=series), rules)
        onsets = _onsets(findings)
        assert onsets.get("loop0 read") == onsets.get("all jobs") == onset, (
            case,
            ramp,
            onset,
            seconds,
            length,
            [(f.rule_id, f.subject, f.title) for f in findings],
        )
        assert "loop1 read" not in onsets and not _onsets(findings, "TEL-STEP"), (case, ramp, findings)
        timeline = run_timeline(
            Run(1, RUN_START, "complete", "", "host", "iolab run", "fio-3.33", "0"), [record], {1: samples}, findings
        )
        marks = {name: [span.start_s for span in spans] for name, spans in timeline.dips.items()}
        at = 10.0 + startup + ramp + onset
        assert marks == {"loop0": [at], FIO_SUM: [at]}, (case, marks)
        fio_times, _ = timeline.series[FIO_SUM]
        device_times, _ = timeline.series["loop0"]
        assert fio_times[0] == 10.0 + startup + ramp + 1  # fio's line from where its logs start
        assert device_times[0] == 10.0 + 1  # the devices as sampled, start-up and ramp too


def test_interference_counts_only_fio_s_measured_seconds_whatever_the_start_up():
    """The device moves three times fio's rate while fio lays out its file and ramps (its start-up and ramp,
    on the samplers' clock), then exactly fio's rate: nothing else used the device while fio was measured, so
    no other I/O is charged. Reading from the ramp alone (start-up dropped) charges the layout to "others"."""
    from iolab.doctor.derived import interference

    rng = random.Random(58)
    target = Target(path="/dev/loop0", kind="device", filename="", size_bytes=1 << 30)
    for case in range(60):
        ramp, startup, seconds = rng.choice([0, 1, 2, 3]), rng.choice([2, 3, 4]), rng.randint(8, 30)
        point = Point("seqread", target, {"rw": "read", "bs": "1m", "direct": "1", "ramp_time": str(ramp)})
        rate = rng.uniform(50, 400) * MB
        result = Result({"read": DirectionResult("read", rate, 1.0, 1, 1, seconds * 1000)}, 5.0, 5.0, 1, "fio-3.33")
        metrics = {FIO_START: PointMetric(FIO_START, startup * 1000.0)}
        record = PointRecord(1, 1, 1, point, "ok", result=result, started_at=RUN_START, metrics=metrics)
        samples = [
            Sample("disk.bw", "read", "loop0", t * 1000, rate * (3.0 if t <= startup + ramp else 1.0))
            for t in range(1, startup + ramp + seconds + 1)
        ]
        (found,) = interference([record], {1: series_of(samples)})
        assert found.busy_io() == [], (case, ramp, startup, seconds, found.other_io)
