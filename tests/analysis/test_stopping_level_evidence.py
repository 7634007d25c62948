"""A stop's level allowance weighs the run's own evidence (issue 40, third round): the kept seconds' level
wander (`trace_wander`, a variogram of 5 s block means) counts for the share of the run they cover and may
lower the allowance of a flat run, never raise it above the prior (`LEVEL`, from other runs). Each test can
fail: a flat run that does not stop earlier, a staircase whose allowance shrinks, a flat start that is
trusted beyond the share of the run it covers."""

from __future__ import annotations

import math
import random
from dataclasses import replace

from iolab.analysis.stopping import LEVEL, StopParams, decide, level_allowance, level_variance, trace_wander

PARAMS = StopParams()
PRIOR = replace(PARAMS, level_evidence=False)


def walk(seed: int, seconds: int, q: float, cv: float = 0.002) -> list[float]:
    """A level that follows a random walk of variance `q` a second (relative), under white scatter `cv`."""
    rng = random.Random(seed)
    level, out = 1.0, []
    for _ in range(seconds):
        level += rng.gauss(0, math.sqrt(q))
        out.append(1000 * level * (1 + rng.gauss(0, cv)))
    return out


def first_stop(values: list[float], params: StopParams) -> tuple[int, bool] | None:
    horizon, whole = len(values), sum(values) / len(values)
    for n in range(1, horizon + 1):
        if level_allowance(horizon - n, horizon, LEVEL * (1 - n / horizon)) > 0.02:
            continue  # the allowance alone is wider than the target: no stop yet (the least `level_variance` gives)
        d = decide(values[:n], 0.02, 3, math.inf, horizon_s=horizon, params=params)
        if d.stop and d.interval is not None:
            kept = values[d.discarded : n]
            return n, abs(sum(kept) / len(kept) - whole) <= d.interval.half_width
    return None


def test_trace_wander_recovers_a_random_walks_variance_and_finds_none_in_white_noise() -> None:
    """Over 40 generated 300 s walks at `LEVEL` the mean estimate is within a factor of 1.5 of it; white noise
    of the same scatter shows under a tenth of it."""
    walks = [trace_wander(walk(seed, 300, LEVEL)) for seed in range(40)]
    flat = [trace_wander(walk(seed, 300, 0.0)) for seed in range(40)]
    assert LEVEL / 1.5 <= sum(walks) / len(walks) <= LEVEL * 1.5, sum(walks) / len(walks)
    assert sum(flat) / len(flat) < LEVEL / 10, sum(flat) / len(flat)
    assert trace_wander([1000.0] * 25) == 0.0  # fewer than six blocks: no evidence


def test_the_evidence_counts_for_the_share_of_the_run_seen_and_never_raises_the_allowance() -> None:
    flat = walk(1, 150, 0.0)
    assert level_variance(flat, 150, 300, PRIOR) == LEVEL  # switched off: the prior alone
    assert level_variance(flat, 30, 300, PARAMS) >= 0.9 * LEVEL  # a tenth of the run seen: at most a tenth off
    assert level_variance(flat, 150, 300, PARAMS) <= 0.6 * LEVEL  # half seen and flat: about half
    wandering = walk(2, 150, 20 * LEVEL)
    assert trace_wander(wandering) > LEVEL
    assert level_variance(wandering, 150, 300, PARAMS) == LEVEL  # evidence of wander: the prior, not more


def test_a_flat_five_minute_point_stops_earlier_on_its_own_evidence_and_still_holds() -> None:
    for seed in range(3):
        values = walk(seed, 300, 0.0, cv=0.003)
        ours, prior = first_stop(values, PARAMS), first_stop(values, PRIOR)
        assert ours is not None and prior is not None and ours[1] and prior[1], (seed, ours, prior)
        assert ours[0] <= prior[0] - 10, (seed, ours, prior)


def test_runs_that_wander_at_the_prior_hold_their_whole_mean_at_the_nominal_rate() -> None:
    """Levels drawn as most real runs are (flat) or wandering at several times `LEVEL`, so their mean is about
    `LEVEL`: stops made on the runs' own evidence hold the whole run's mean in at least 90% of them."""
    stops = held = 0
    for seed in range(8):
        q = 4 * LEVEL if seed % 4 == 0 else 0.0
        stop = first_stop(walk(100 + seed, 300, q), PARAMS)
        if stop is not None:
            stops += 1
            held += stop[1]
    assert stops >= 4 and held >= 0.9 * stops, (stops, held)
