"""A stop's interval holds the mean of the WHOLE run it stands in for (issue 40): a level that drifts over
the seconds the stop leaves unrun, or a warm-up the stop set aside, moves that mean, and a stop needs
evidence that neither moves it beyond the interval. Each test replays `decide` second by second as the
runner asks it, the run's length its horizon."""

from __future__ import annotations

import math
import random
from dataclasses import replace

from iolab.analysis.stopping import (
    LEVEL,
    TODAY,
    StopParams,
    batch_interval,
    decide,
    drift_term,
    level_allowance,
    warm_up_pull,
)

PARAMS = StopParams()


def first_stop(values: list[float], params: StopParams = PARAMS, writes: bool = False) -> tuple[int, bool] | None:
    """The second the rule stops `values` as known and whether its interval holds the whole run's mean
    (every second, warm-up included); None when it never does."""
    horizon = len(values)
    whole = sum(values) / horizon
    for n in range(1, horizon + 1):
        d = decide(values[:n], 0.02, 3, math.inf, writes=writes, horizon_s=horizon, params=params)
        if d.stop:
            assert d.reason == "target met" and d.interval is not None
            kept = values[d.discarded : n]
            return n, abs(sum(kept) / len(kept) - whole) <= d.interval.half_width
    return None


def rising(seed: int, seconds: int = 300, rise: float = 0.045, cv: float = 0.003) -> list[float]:
    """A read that rises `rise` over the run, linearly, under white per-second noise (fio-plot's 5-minute
    reads rise about 4.5%)."""
    rng = random.Random(seed)
    return [1000 * (1 + rise * i / (seconds - 1)) * (1 + rng.gauss(0, cv)) for i in range(seconds)]


def test_a_read_that_rises_over_five_minutes_is_not_stopped_early_with_an_interval_that_misses() -> None:
    for seed in range(3):
        values = rising(seed)
        stop = first_stop(values)
        assert stop is None or (stop[0] > 5 and stop[1]), (seed, stop)
    # the case can fail: the rule before issue 40 stopped the same reads within 5 s, its interval missing
    today = [first_stop(rising(seed), TODAY) for seed in range(3)]
    assert all(s is not None and s[0] <= 5 and not s[1] for s in today), today


def test_a_flat_point_still_stops_early_reading_or_writing() -> None:
    """A flat 5-minute point stops by half its run (the level allowance: 0.3% scatter alone would let it
    stop at 20-60 s), a 1-minute one within 20 s."""
    for seed in range(3):
        rng = random.Random(seed)
        long = [1000 * (1 + rng.gauss(0, 0.003)) for _ in range(300)]
        short = long[:60]
        for writes in (False, True):
            five_minutes, one_minute = first_stop(long, writes=writes), first_stop(short, writes=writes)
            assert five_minutes is not None and five_minutes[0] <= 150 and five_minutes[1], (seed, five_minutes)
            assert one_minute is not None and one_minute[0] <= 20 and one_minute[1], (seed, one_minute)


def test_a_fast_start_set_aside_still_counts_in_the_whole_runs_mean() -> None:
    """The first 5 s at +30% move a 60 s run's mean by 2.5%: the kept seconds' interval must reach it."""
    for seed in range(4):
        rng = random.Random(seed)
        values = [1000 * (1 + 0.3 * math.exp(-i / 2) * (i < 5)) * (1 + rng.gauss(0, 0.003)) for i in range(60)]
        stop = first_stop(values)
        assert stop is None or stop[1], (seed, stop)


def test_stops_hold_the_whole_runs_mean_over_generated_drifts_noise_and_warm_ups() -> None:
    """Generated runs of 30-60 s: a linear drift of up to ±6%, per-second scatter 0.2-3%, AR(1) noise up to
    phi 0.7, a fast or slow start or none. At most 2 of 20 stops may miss (95% nominal)."""
    rng = random.Random(40)
    stops = missed = 0
    for _ in range(20):
        seconds, drift, cv, phi = (
            rng.randint(30, 60),
            rng.uniform(-0.06, 0.06),
            rng.uniform(0.002, 0.03),
            0.7 * rng.random(),
        )
        warm, level, values = rng.choice((0.0, 0.3, -0.3)), 0.0, []
        for i in range(seconds):
            level = phi * level + rng.gauss(0, cv * math.sqrt(1 - phi * phi))
            values.append(1000 * (1 + drift * i / seconds) * (1 + warm * math.exp(-i / 2)) * (1 + level))
        stop = first_stop(values)
        if stop is not None:
            stops += 1
            missed += not stop[1]
    assert stops >= 5 and missed <= 2, (stops, missed)


def test_the_drift_and_warm_up_terms_vanish_at_the_runs_end_and_grow_with_what_is_left() -> None:
    rng = random.Random(1)
    values = [1000 * (1 + 0.0005 * i) * (1 + rng.gauss(0, 0.003)) for i in range(30)]
    interval = batch_interval(values)
    assert interval is not None
    assert drift_term(values, interval, 0) == 0 < drift_term(values, interval, 30) < drift_term(values, interval, 270)
    assert warm_up_pull([], 1000.0, 60) == 0 and math.isclose(warm_up_pull([1300.0] * 5, 1000.0, 60), 25.0)


def staircase(seed: int) -> list[float]:
    """fio-plot's Intel 5-minute reads: flat for 50 s, then up 2.7%, 1% near 100 s and 0.7% near 200 s, under
    0.1% per-second scatter: nothing in the first 50 s foretells the steps."""
    rng = random.Random(seed)
    steps = ((50, 0.027), (100, 0.01), (200, 0.007))
    return [1000 * (1 + sum(d for at, d in steps if i >= at)) * (1 + rng.gauss(0, 0.001)) for i in range(300)]


def test_a_flat_start_that_steps_up_later_is_not_stopped_with_an_interval_that_misses() -> None:
    """The level allowance holds the whole run's mean of a staircase the first seconds cannot foresee; the
    rule without it (drift bound only, the rule of issue 40's first round) stops in the flat start and misses.
    Once the steps are seen the point may still be known before its end: the level set aside is priced by
    its pull on the whole run's mean (before, a level set aside forbade the stop to the end)."""
    for seed in range(3):
        stop = first_stop(staircase(seed))
        assert stop is not None and 100 < stop[0] < 250 and stop[1], (seed, stop)
        without = first_stop(staircase(seed), replace(PARAMS, level=0.0))
        assert without is not None and without[0] < 50 and not without[1], (seed, without)


def test_the_level_allowance_holds_a_random_walks_future_mean_at_its_nominal_rate() -> None:
    """Generated random-walk levels of variance `LEVEL` a second: the whole run's mean lies within the
    allowance of the level at the stop in about 95% of runs (90-99% of 400), at any stop second."""
    rng = random.Random(7)
    for horizon, stop in ((60, 10), (300, 60), (300, 150)):
        inside = 0
        for _ in range(400):
            level, path = 1.0, []
            for _ in range(horizon - stop):
                level += rng.gauss(0, math.sqrt(LEVEL))
                path.append(level)
            whole = (stop * 1.0 + sum(path)) / horizon
            inside += abs(whole - 1.0) <= level_allowance(horizon - stop, horizon, LEVEL)
        assert 0.90 <= inside / 400 <= 0.99, (horizon, stop, inside)
    assert level_allowance(0, 300, LEVEL) == 0 < level_allowance(30, 300, LEVEL) < level_allowance(250, 300, LEVEL)
