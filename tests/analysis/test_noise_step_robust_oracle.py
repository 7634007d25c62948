"""analysis/noise.py's step-robust error against a second, independent reading of its own definition (the
docstring of `step_robust_error`), over generated series of both parities of length (a median of an even
count is the mean of the middle two), with level steps, stalled seconds, strong correlation and all-zero or
tiny means, and at the edges of its refusals from both sides (fewer than MIN_BATCHES seconds; a mean at 0).
Issue 41: noise's mutants lived where its fast tests stood on one side of an edge or read one example."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pytest

from iolab.analysis.noise import own_noise, relative_error, step_robust_error
from iolab.analysis.stopping import COUNT_VARIANCE, MIN_BATCHES, WANDER, batch_interval
from iolab.analysis.student_t import t_quantile

# the median of a squared standard normal (0.45494), to the four digits the module keeps
CHI2_1_MEDIAN = round(statistics.NormalDist().inv_cdf(0.75) ** 2, 4)
MAX_RHO, LOWEST = 0.9, 1e-3  # the docstring's bounds: the greatest lag-1 correlation; a stalled second's floor


def _trimmed(squares: np.ndarray, top: int) -> float:
    ordered = np.sort(squares)
    return float(np.mean(ordered[: len(ordered) - min(top, len(ordered) // 4)]))


def oracle(values: list[float]) -> float | None:
    x = np.asarray(values, dtype=float)
    if len(x) < MIN_BATCHES or x.mean() <= 0:
        return None
    logs = np.log(np.maximum(x, LOWEST * x.mean()))
    one, two = np.diff(logs) ** 2, (logs[2:] - logs[:-2]) ** 2
    lag1 = _trimmed(one, 4)
    rho = float(np.clip(_trimmed(two, 6) / lag1 - 1, 0, MAX_RHO)) if lag1 > 0 else 0.0
    difference = max(float(np.median(one)) / CHI2_1_MEDIAN, 2 * COUNT_VARIANCE / x.mean() ** 2)
    n = len(x)
    variance = difference * (1 + rho) / (2 * (1 - rho) ** 2) / n
    t = t_quantile(0.975, max(1, int(n * (1 - rho) / (1 + rho)) - 1))
    return math.sqrt(variance + (WANDER / t) ** 2)


def _series(rng: random.Random) -> list[float]:
    n = rng.randint(MIN_BATCHES, 41)
    level, spread, rho = rng.choice([0.5, 3.0, 200.0, 5e8]), rng.choice([0.001, 0.05, 0.3]), rng.choice([0, 0.5, 0.95])
    noise, out = 0.0, []
    for i in range(n):
        noise = rho * noise + rng.gauss(0, spread)
        step = 0.5 if rng.random() < 0.3 and i > n // 2 else 1.0
        out.append(max(0.0, level * step * (1 + noise)))
    if rng.random() < 0.3:
        out[rng.randrange(n)] = 0.0  # a stalled second
    return out


def test_the_step_robust_error_is_its_definition_over_generated_series():
    rng = random.Random(41)
    parities = set()
    for _ in range(120):
        values = _series(rng)
        parities.add(len(values) % 2)
        assert step_robust_error(values) == pytest.approx(oracle(values), rel=1e-9, abs=1e-15), values
    assert parities == {0, 1}


@pytest.mark.parametrize(
    ("values", "refused"),
    [
        ([5.0] * (MIN_BATCHES - 1), True),  # one second short
        ([5.0] * MIN_BATCHES, False),
        ([0.0] * 12, True),  # a mean of exactly 0
        ([0.0] * 11 + [1e-9], False),  # a mean just above 0
        ([0.5, 0.25, 1.0, 0.75] * 3, False),  # a mean in (0, 1]: kept
        ([1.0] * 12, False),
    ],
)
def test_refused_below_min_batches_and_at_a_mean_of_zero_and_nowhere_else(values, refused):
    assert (step_robust_error(values) is None) == refused
    if not refused:
        assert step_robust_error(values) == pytest.approx(oracle(values), rel=1e-9)


def test_the_batch_means_error_is_the_interval_s_half_width_over_its_t_and_its_mean():
    rng = random.Random(5)
    for _ in range(40):
        values = _series(rng)
        interval = batch_interval(values)
        expected = interval.half_width / t_quantile(0.975, interval.batches - 1) / interval.mean
        assert relative_error(values) == pytest.approx(expected, rel=1e-12)
    tiny = [0.5, 0.25, 1.0, 0.75] * 3  # a mean in (0, 1] is a mean like any other
    assert relative_error(tiny) == pytest.approx(relative_error([v * 1000 for v in tiny]), rel=1e-9)


def test_a_drive_s_noise_is_the_smaller_of_its_two_figures_and_none_if_either_is():
    rng = random.Random(7)
    for _ in range(40):
        values = _series(rng) + [1.0] * 20
        robust, batched = step_robust_error(values), relative_error(values)
        expected = None if robust is None or batched is None else min(robust, batched)
        assert own_noise(values) == expected
    assert own_noise([0.0] * 30) is None and relative_error([0.0] * 30) is None
    assert relative_error([1.0] * (MIN_BATCHES - 1)) is None
