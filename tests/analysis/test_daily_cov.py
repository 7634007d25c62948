"""Per-day COV: local calendar days, sample stddev (n-1) over the mean, failures and gaps."""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import replace

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


def _reference(times, values, cov_target):
    """`daily_cov` as it was before it cut sorted runs at midnights: a date string per run."""
    from iolab.analysis.daily import DayCov

    days: dict[str, list[tuple[float, float]]] = {}
    for t, v in zip(times, values, strict=True):
        if not math.isnan(v):
            days.setdefault(time.strftime("%Y-%m-%d", time.localtime(t)), []).append((t, v))
    out = []
    for day in sorted(days):
        stamps, figures = zip(*days[day], strict=True)
        mean = math.fsum(figures) / len(figures)
        spread = math.sqrt(math.fsum((x - mean) ** 2 for x in figures) / (len(figures) - 1)) if len(figures) > 1 else 0
        cov = spread / mean if len(figures) >= 2 and mean > 0 else None
        over = (cov is not None and cov > cov_target) or (len(figures) >= 2 and mean == 0)
        out.append(DayCov(day, len(figures), mean, cov, (min(stamps) + max(stamps)) / 2, over))
    return out


# Clock changes: Berlin's at 02:00/03:00, Sao Paulo's back at midnight (2018-02-18 00:00 -> 02-17 23:00),
# Lord Howe's half hour, Apia's skipped day (2011-12-30), and zones without any.
ZONES = ("UTC", "EST5", "Europe/Berlin", "America/Sao_Paulo", "Australia/Lord_Howe", "Pacific/Apia")
STARTS = (1_318_000_000.0, 1_324_900_000.0, 1_508_000_000.0, 1_518_800_000.0, 1_767_225_600.0)


@pytest.mark.parametrize("name", ZONES)
def test_the_cut_at_midnights_gives_the_figures_of_a_date_per_run_exactly(zone, name):
    """Random runs (hourly, clustered, tied, unsorted, NaN, zeros, days of one run) around clock changes."""
    import random

    zone(name)
    rng = random.Random(name)
    for trial in range(40):
        start = rng.choice(STARTS) + rng.uniform(-40, 40) * 86400
        n = rng.choice((0, 1, 2, 5, 50, 400))
        step = rng.choice((60.0, 1800.0, 3600.0, 5 * 3600.0, 86400.0))
        times = [start + step * i + rng.choice((0.0, rng.uniform(0, step))) for i in range(n)]
        if trial % 3 == 0:
            rng.shuffle(times)
        if trial % 5 == 0 and times:
            times += times[: n // 3]  # runs at the same instant
        values = [rng.choice((math.nan, 0.0, 1e10, 1e10 * (1 + 0.05 * rng.gauss(0, 1)))) for _ in times]
        if trial % 2:
            values = [1e9 * (1 + 0.02 * rng.gauss(0, 1)) for _ in times]
        got, want = daily_cov(times, values, 0.03), _reference(times, values, 0.03)
        assert [replace(d, cov=None) for d in got] == [replace(d, cov=None) for d in want], (name, trial)
        for new, old in zip(got, want, strict=True):  # a square by multiplying, not pow: within a rounding
            assert new.cov == (None if old.cov is None else pytest.approx(old.cov, rel=1e-12, abs=0))


def test_a_clock_change_back_across_midnight_dates_each_run_of_that_day(zone):
    """Goose Bay went back from 00:01 on 2010-11-07 to 23:01 on the 6th: for an hour, runs after midnight
    are dated the day before again, so that day cannot be cut at midnights."""
    zone("America/Goose_Bay")
    back = 1_289_098_860.0  # 00:01 ADT, which became 23:01 AST on the 6th
    times = [back + 30 * k for k in range(-3000, 3000)]  # one at 00:00:30 ADT, in the minute before
    values = [1e9 + 1e7 * (k % 13) for k in range(len(times))]
    got, want = daily_cov(times, values, 0.03), _reference(times, values, 0.03)
    assert [(d.day, d.runs) for d in got] == [(d.day, d.runs) for d in want]
    assert [(d.mean, d.time) for d in got] == [(d.mean, d.time) for d in want]
