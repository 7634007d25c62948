"""The rate invariant of a stopped point (analysis.invariants.rate_is_bytes_over_time): its rate covers the
kept window, `kept_s` whole seconds rounded, so the whole run's bytes bound it from above by bytes over
`kept_s - 0.5` seconds (at least half a second), with the invariants' 1% and 1 KiB/s of fio's rounding. A
rate a hair inside that bound passes and a hair beyond it is a violation, for a long window (where the half
second of slack decides) and for a one-second window (where the half-second floor does)."""

from __future__ import annotations

import pytest

from iolab.analysis.invariants import RATE_SLACK, RATE_SLACK_ABS, rate_is_bytes_over_time
from iolab.models import Result
from iolab.models.job_options import JobOptions
from iolab.models.result import DirectionResult, StopRecord

BYTES = 3 << 30


def _stopped(kept_s: int, bw: float) -> Result:
    read = DirectionResult("read", bw, bw / 4096, BYTES // 4096, BYTES, 30_000)
    stop = StopRecord(reason="target met", ci=0.01, target=0.02, discarded_s=3, kept_s=kept_s)
    return Result({"read": read}, 1.0, 2.0, 1, "fio-3.33", stopping=stop)


@pytest.mark.parametrize(("kept_s", "seconds"), [(10, 9.5), (4, 3.5), (1, 0.5)])
def test_a_stopped_point_s_rate_is_bounded_by_its_bytes_over_the_kept_window(kept_s: int, seconds: float) -> None:
    bound = BYTES / seconds * (1 + RATE_SLACK) + RATE_SLACK_ABS
    job = JobOptions({"rw": "read"})
    assert rate_is_bytes_over_time(_stopped(kept_s, bound * 0.999), job) == []
    (beyond,) = rate_is_bytes_over_time(_stopped(kept_s, bound * 1.001), job)
    assert beyond.invariant == "rate is bytes over time" and beyond.ddir == "read"
    assert f"over the kept {kept_s} s" in beyond.detail
