"""A point stopped when known ends sooner than its job asked, never later: generated jobs of every length
(runtime, ramp_time, time_based or not, none at all; a size-bound job stays size-bound) against generated
rules, with and without a --max-seconds of their own, and the invariant that reads the stored result agrees with what the rule let fio run."""

from __future__ import annotations

import random

from iolab.analysis.invariants import violations
from iolab.models import Point, Result, StopRecord, Target
from iolab.models.result import DirectionResult
from iolab.runner.stopping import StopRule, point_rule, stopping_point

TARGET = Target(path="/x", kind="file", filename="/x/f", size_bytes=1 << 20)


def _job(rng: random.Random) -> dict[str, str]:
    options = {"rw": rng.choice(["read", "randwrite"])}
    if rng.random() < 0.8:
        options["runtime"] = rng.choice([f"{rng.randint(1, 120)}", f"{rng.randint(1, 120)}s", f"{rng.randint(1, 3)}m"])
    if rng.random() < 0.5:
        options["ramp_time"] = f"{rng.randint(0, 10)}"
    if rng.random() < 0.5:
        options["time_based"] = "1"
    return options


def test_a_stopped_point_never_asks_fio_for_more_than_its_job_or_the_rule() -> None:
    rng = random.Random(35)
    for _ in range(2_000):
        point = Point("p", TARGET, _job(rng))
        max_s = rng.choice([None, 4.0, 10.0, 60.0, 600.0])  # None: no --max-seconds given
        mins = [m for m in (1.0, 3.0, 10.0) if max_s is None or m <= max_s]
        rule = StopRule(target=0.02, min_s=rng.choice(mins), max_s=max_s)
        own = point.job.expected_seconds
        # the job's own length bounds it; a --max-seconds given only shortens it; 60 s for a job with none
        most = (own if max_s is None else min(own, max_s)) if own else (60.0 if max_s is None else max_s)
        effective = point_rule(point, rule)
        stopped = stopping_point(point, effective)
        asked = stopped.job.runtime_seconds
        assert asked == effective.max_s and stopped.job.ramp_seconds == 0, point
        assert stopped.job.time_based == point.job.time_based, point  # a size-bound job still ends at its size
        assert asked == most, (point.options, rule, asked)
        assert 0 < effective.min_s <= effective.max_s, (point.options, effective)
        # the interval a stop prints is of the run the job asked for, however much of it the rule lets fio run
        assert effective.horizon == (own if own else most) >= effective.max_s, (point.options, effective)
        # the stored result of a point that ran to its maximum breaks no invariant; one that ran well past its
        # job's own ramp_time + runtime does, whenever the job set a runtime
        runtime = point.job.runtime_seconds
        for ran_s, broken in ((asked, False), (own * 1.2 + 2, bool(runtime))):
            found = _duration_violations(point, ran_s)
            assert bool(found) == broken, (point.options, rule, ran_s, found)


def _duration_violations(point: Point, ran_s: float) -> list:
    read = DirectionResult("read", 1e6, 244.0, int(244 * ran_s), int(1e6 * ran_s), round(ran_s * 1000))
    result = Result({"read": read}, 0.0, 0.0, 1, "fio-3.36")
    result.stopping = StopRecord(reason="target not met", ci=0.05, target=0.02, discarded_s=0, kept_s=1)
    return [v for v in violations(result, point.options) if v.invariant == "duration within what was asked"]
