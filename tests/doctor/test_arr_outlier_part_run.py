"""ARR-OUTLIER on a drive slow for part of its point (issue 40, third round): the rule reads each drive's noise
from its own seconds, about its own levels, so the drive's two levels do not excuse it."""

from __future__ import annotations

import numpy as np

from iolab.doctor.derived import ArrayView, PointSeries
from iolab.doctor.engine import evaluate
from iolab.doctor.rule import Context

MB = 1e6


def _series(point: str, seconds: list[float]) -> PointSeries:
    """Whole seconds with a partial first and last one, as fio logs them."""
    values = [seconds[0] * 0.3, *seconds, seconds[-1] * 0.2]
    return PointSeries(point, "all jobs", [float(t) for t in range(len(values))], [v * MB for v in values])


def test_a_drive_slow_for_two_thirds_of_its_point_is_named_alone():
    """Ten drives alone, 60 s each at about 500 MB/s (1% noise, peers within 2%); one holds 500 for 20 s, then
    150 for 40 s: its mean is 267. Its seconds about their one mean have a standard error of about 20% of it
    (the batch means hold the step), which would excuse it; about its own levels, 1%: named."""
    rng = np.random.default_rng(40)
    levels = {f"d{i}": 500.0 * (1 + 0.02 * (i % 3 - 1)) for i in range(10)}
    seconds = {d: list(v * (1 + 0.01 * rng.standard_normal(60))) for d, v in levels.items()}
    seconds["d4"] = [500.0 * (1 + 0.01 * e) for e in rng.standard_normal(20)] + [
        150.0 * (1 + 0.01 * e) for e in rng.standard_normal(40)
    ]
    alone = {d: float(np.mean(s)) * MB for d, s in seconds.items()}
    view = ArrayView("seq-read", {}, alone, [])
    view.points = {(d,): f"seq-read-alone-{d}" for d in alone}
    series = [_series(f"seq-read-alone-{d}", s) for d, s in seconds.items()]
    findings = [f for f in evaluate(Context(arrays=[view], series=series)) if f.rule_id == "ARR-OUTLIER"]
    assert [f.subject for f in findings] == ["d4"]
    own = str(findings[0].evidence["own noise"])
    assert own.startswith("±") and float(own[1:].split("%")[0]) < 3, own
