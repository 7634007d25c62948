"""Batch-means interval, trend test and MSER on synthetic series and on real fio per-second series."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path

import pytest

from iolab.analysis.stopping import (
    PARAMS,
    WANDER,
    WRITE_MIN_S,
    batch_interval,
    decide,
    level_shift,
    mser_cut,
    steady,
    stop_wander,
    trend_significant,
)

DATA = Path(__file__).parents[1] / "data" / "fio" / "stopping"


def real(name: str) -> list[float]:
    """A fio iops log's values (fio 3.33, see the README beside it)."""
    return [float(line.split(",")[1]) for line in (DATA / name).read_text().splitlines()]


def noisy(n: int, level: float = 1000.0, cv: float = 0.01, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [level * (1 + rng.gauss(0, cv)) for _ in range(n)]


def test_interval_of_white_noise_is_about_t_times_sd_over_root_n() -> None:
    values = noisy(30)
    interval = batch_interval(values)
    assert interval is not None and interval.batch_s == 1
    sd = math.sqrt(sum((v - interval.mean) ** 2 for v in values) / 29)
    expected = math.hypot(2.045 * sd / math.sqrt(30), WANDER * interval.mean)  # and the wander real devices show
    assert math.isclose(interval.half_width, expected, rel_tol=0.01)


def test_autocorrelated_series_gets_batches_and_a_wider_interval() -> None:
    rng = random.Random(3)
    values, x = [], 0.0
    for _ in range(40):
        x = 0.9 * x + rng.gauss(0, 10)  # AR(1): slow seconds come in runs
        values.append(1000 + x)
    interval = batch_interval(values)
    assert interval is not None and interval.batch_s > 1
    naive = 2.02 * math.sqrt(sum((v - interval.mean) ** 2 for v in values) / 39 / 40)
    assert interval.half_width > naive


def test_too_few_seconds_have_no_interval() -> None:
    assert batch_interval([1.0, 2.0, 3.0]) is None


def test_trend_is_found_in_a_ramp_and_not_in_noise() -> None:
    ramp = [1000 - 20 * i + v - 1000 for i, v in enumerate(noisy(12))]
    assert trend_significant(ramp)[0]
    assert not trend_significant(noisy(12, seed=7))[0]


def test_a_fall_by_half_is_not_steady() -> None:
    values = noisy(5) + noisy(5, level=500.0, seed=2)
    interval = batch_interval(values)
    assert interval is not None and not steady(values, interval)


def test_mser_cuts_a_warm_up_and_nothing_from_a_steady_series() -> None:
    warm = [3000.0, 2200.0, 1500.0] + noisy(17)
    assert 3 <= mser_cut(warm) <= 5  # every warm-up second, and perhaps a noisy one or two with them
    assert mser_cut(noisy(20)) <= 2  # on noise MSER may take a second or two: less data, no bias


def test_mser_never_cuts_more_than_half() -> None:
    assert mser_cut([5000.0] * 6 + noisy(4)) <= 5


def test_decide_waits_for_the_minimum_and_stops_a_steady_series() -> None:
    values = noisy(60, cv=0.002, seed=2)
    assert not decide(values[:2], 0.02, 3, 60).stop
    assert not decide(values[:3], 0.02, 3, 60).stop  # three seconds: fewer than an interval's four batches
    stop = next(n for n in range(1, 61) if decide(values[:n], 0.02, 3, 60).stop)
    assert 4 <= stop <= 15 and decide(values[:stop], 0.02, 3, 60).reason == "target met", stop


def test_a_flat_point_is_known_as_soon_reading_as_writing() -> None:
    """Issue 40: a stop needs evidence of no drift over the rest of the run, reads and writes alike; with that
    bound the wander terms chosen on fio-plot's choose half are the same, so a flat writer is known with a
    reader (before issue 40 a writer waited out a 2% wander term to 21 s), and stopped once it has run its
    minimum (`WRITE_MIN_S`: a write may fall after a flat start, tests/analysis/test_stopping_write_min.py)."""
    values = noisy(60, cv=0.002, seed=4)
    unmin = replace(PARAMS, write_min_s=0.0)
    reading = next(n for n in range(1, 61) if decide(values[:n], 0.02, 3, math.inf).stop)
    known = next(n for n in range(1, 61) if decide(values[:n], 0.02, 3, math.inf, writes=True, params=unmin).stop)
    writing = next(n for n in range(1, 61) if decide(values[:n], 0.02, 3, math.inf, writes=True).stop)
    assert reading == known <= 15 and writing == WRITE_MIN_S, (reading, known, writing)
    assert stop_wander(5, True) >= stop_wander(60, True) and stop_wander(5, False) >= stop_wander(60, False)


def test_decide_at_the_maximum_says_why() -> None:
    falling = noisy(6) + noisy(4, level=500.0, seed=2)  # the fall in the second half: not a warm-up
    assert not decide(falling[:9], 0.02, 3, 10).stop
    decision = decide(falling, 0.02, 3, 10)
    assert decision.stop and decision.reason == "not steady" and not decision.steady


def test_real_tmpfs_series_is_too_noisy_for_two_percent() -> None:
    values = real("tmpfs-randread_iops.1.log")
    decision = decide(values, 0.02, 3, len(values))
    assert decision.stop and not decision.reason == "target met"
    assert decision.interval is not None and decision.interval.relative > 0.1


def test_real_loop_series_is_known_within_a_wide_target() -> None:
    values = real("loop-randwrite_iops.1.log")
    interval = batch_interval(values)
    assert interval is not None and 0.1 < interval.relative < 0.5
    assert mser_cut(values) <= len(values) // 2


def test_a_level_held_for_20_s_then_halved_is_never_called_known_nor_cut_as_warm_up() -> None:
    # MSER alone takes the first 20 s as warm-up once 20 s of the new level follow, and calls that known.
    # A start-up burst before the first level, and a second the fall straddles between the two.
    values = [420.0, 380.0] + noisy(18, level=320.0, cv=0.03) + [240.0] + noisy(39, level=160.0, cv=0.03, seed=2)
    for n in range(21, 60):
        assert not decide(values[:n], 0.02, 3, 60).stop, n
    assert mser_cut(values[:56]) > 21  # at 56 s the cut reaches into the new level: the first level still counts
    decision = decide(values, 0.02, 3, 60)
    assert decision.stop and decision.reason == "not steady" and not decision.steady


def test_a_long_warm_up_that_trends_is_still_cut_and_the_rest_known() -> None:
    # Its pull on the whole run's mean (issue 40) is within the target once the run is 10x the warm-up.
    warm = [1300.0, 1250.0, 1200.0, 1150.0, 1100.0, 1050.0] + noisy(54, cv=0.003)
    decision = decide(warm, 0.02, 3, 60)
    assert decision.stop and decision.reason == "target met" and decision.discarded >= 5


def test_a_real_throttled_fall_by_half_is_never_called_known() -> None:
    values = [float(v) for v in (DATA / "loop-throttle-fall_iops.txt").read_text().split()]
    for n in range(21, len(values)):
        assert not decide(values[:n], 0.02, 3, 60).stop, n
    decision = decide(values, 0.02, 3, len(values))
    assert decision.reason == "not steady"


def test_a_cut_that_reached_past_the_change_still_shows_the_level_before_it() -> None:
    # Seen on a throttled loop device: at 56 s MSER cut 28 s, the 20 s level and 8 s of the new one.
    discarded = noisy(20, level=320.0, cv=0.01) + [240.0] + noisy(7, level=160.0, cv=0.01, seed=2)
    kept = batch_interval(noisy(28, level=160.0, cv=0.01, seed=3))
    assert kept is not None and level_shift(discarded, kept)
    assert not level_shift([3000.0, 2200.0, 1500.0], kept)  # a start-up transient is no level


def _coverage(series: list[tuple[list[float], float]]) -> tuple[int, float]:
    """Replays `decide` second by second as the runner does (±2%, at least 3 s); returns how many series were
    stopped as known and the share of those whose interval holds the reference mean given with each."""
    known = held = 0
    for values, reference in series:
        for n in range(1, len(values) + 1):
            decision = decide(values[:n], 0.02, 3, math.inf)
            if decision.stop:
                break
        if not decision.stop or decision.reason != "target met" or decision.interval is None:
            continue
        kept = values[decision.discarded : n]
        known += 1
        held += abs(sum(kept) / len(kept) - reference) <= decision.interval.half_width
    return known, held / known if known else 0.0


@pytest.mark.parametrize("cv", [0.03, 0.04, 0.05])
def test_white_noise_stopped_as_known_holds_its_true_mean_in_at_least_93_percent(cv: float) -> None:
    """Issue 35: at 3-5% per-second scatter, 11-14% of stops missed ±2% of the true mean (looking every second
    at the first window that looked narrow); the wander term real devices need covers that too."""
    series = []
    for seed in range(100):
        rng = random.Random(seed)
        series.append(([1000 * (1 + rng.gauss(0, cv)) for _ in range(60)], 1000.0))
    known, coverage = _coverage(series)
    assert known >= 50 and coverage >= 0.93, (known, coverage)


def _wandering(seed: int) -> tuple[list[float], float]:
    """60 s of a rate that wanders over tens of seconds (AR(1), 20 s time constant, 2% of the mean) under 4%
    per-second scatter, with the mean of the whole 60 s: a point run to its full length."""
    rng = random.Random(seed)
    level, values = rng.gauss(0, 0.02), []
    for _ in range(60):
        level = 0.95 * level + rng.gauss(0, 0.02 * math.sqrt(1 - 0.95**2))
        values.append(1000 * (1 + level + rng.gauss(0, 0.04)))
    return values, sum(values) / len(values)


def test_a_rate_that_wanders_over_tens_of_seconds_holds_its_whole_run_mean_in_93_percent() -> None:
    known, coverage = _coverage([_wandering(seed) for seed in range(100)])
    assert known >= 50 and coverage >= 0.93, (known, coverage)


def test_a_steady_device_is_still_known_within_six_seconds() -> None:
    """Issue 35 item 4: a throttled loop device reads the same every second; the quick preset's five points
    (10 s each) must each stop by about 6 s to keep it within 30 s of fio time. Bounding the drift over the
    rest of its 10 s (issue 40) costs a second at 0.5% per-second scatter: 4-7 s."""
    for seed in range(20):
        values = noisy(10, cv=0.005, seed=seed)
        stop = next(n for n in range(1, 11) if decide(values[:n], 0.02, 3, math.inf, horizon_s=10).stop)
        assert stop <= 7, (seed, stop)


def test_whole_io_counts_that_repeat_are_not_known_exactly() -> None:
    """A floppy reads 3 I/Os a second, every second: four equal counts gave a zero-width interval and a stop at
    4 s; a count of whole I/Os is never known finer than its rounding."""
    decision = decide([3.0] * 6, 0.02, 3, math.inf)
    assert not decision.stop and decision.interval is not None and decision.interval.relative > 0.02


def test_a_fall_after_half_a_short_point_is_not_known_at_its_second_level() -> None:
    """Seen on a throttled loop device halved 4.5 s into an 8 s point: MSER set the first four seconds aside as
    warm-up, too few for the level shift test, and the second level was "known" at 8 s."""
    for seed in range(10):
        values = noisy(4, level=320.0, cv=0.005, seed=seed) + noisy(4, level=160.0, cv=0.005, seed=seed + 50)
        for n in range(5, 9):
            assert not decide(values[:n], 0.02, 5, 8).reason == "target met", (seed, n)
