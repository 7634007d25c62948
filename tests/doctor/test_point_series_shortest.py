"""A point's per-second series of exactly MIN_SERIES_SAMPLES (six) seconds is kept for the dip rules, one of
five is not: fewer say nothing about dips. No fast test had a series of exactly six (fresh seed 78612 found
`>=` turned `>` survived)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from iolab.doctor.derived import point_series
from iolab.models.sample_series import SampleSeries


def _series(seconds: int) -> list:
    record = SimpleNamespace(id=1, point=SimpleNamespace(name="p", target=SimpleNamespace(kind="file")))
    t_ms = np.arange(1, seconds + 1, dtype=np.int64) * 1000
    log = SampleSeries("bw", "read", "job1", t_ms, np.full(seconds, 1e8))
    return point_series([record], {1: [log]})  # type: ignore[list-item]


def test_a_series_of_six_seconds_is_kept_and_one_of_five_is_not():
    (kept,) = _series(6)
    assert (kept.point, kept.label, len(kept.times_s)) == ("p", "all jobs", 6)
    assert _series(5) == []
