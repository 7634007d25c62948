"""Per-day COV: local calendar days, sample stddev (n-1) over the mean, failures and gaps."""

from __future__ import annotations

import math
import statistics
import time

import pytest

from iolab.analysis.daily import daily_cov

T0 = 1_767_225_600.0  # 2026-01-01 00:00 UTC


@pytest.fixture
def zone(monkeypatch):
    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def test_days_are_local_and_cov_uses_n_minus_one(zone):
    zone("UTC")
    times = [T0 + h * 3600 for h in (1, 5, 9, 25, 29)]
    values = [100.0, 110.0, 90.0, 100.0, 100.0]
    first, second = daily_cov(times, values, 0.08)
    assert (first.day, first.runs, second.day, second.runs) == ("2026-01-01", 3, "2026-01-02", 2)
    assert first.cov == pytest.approx(statistics.stdev([100, 110, 90]) / 100)  # 0.1: over 8%
    assert first.over_target and second.cov == 0.0 and not second.over_target
    assert first.time == T0 + 5 * 3600
    # Five hours west of UTC, 01:00 UTC is 20:00 on 2025-12-31 and 05:00 UTC on the 2nd is midnight.
    zone("EST5")
    assert [(d.day, d.runs) for d in daily_cov(times, values, 0.08)] == [
        ("2025-12-31", 1),
        ("2026-01-01", 3),
        ("2026-01-02", 1),
    ]


def test_a_lone_run_has_no_cov_nan_is_left_out_and_a_day_of_failures_is_over(zone):
    zone("UTC")
    lone, missing, failed = daily_cov(
        [T0, T0 + 86400, T0 + 86400 + 60, T0 + 2 * 86400, T0 + 2 * 86400 + 60],
        [100.0, math.nan, 50.0, 0.0, 0.0],
        0.08,
    )
    assert lone.cov is None and not lone.over_target
    assert missing.runs == 1 and missing.cov is None
    assert failed.cov is None and failed.mean == 0.0 and failed.over_target
    assert daily_cov([], [], 0.08) == []
