"""A batch-means interval always holds at least `MIN_BATCHES` batches, whatever the series' length and
autocorrelation: `noise.relative_error` divides by Student's t on `batches - 1` degrees of freedom and relies on
it (its check for fewer than two batches could never be true and was removed)."""

from __future__ import annotations

import random

import pytest

from iolab.analysis.noise import relative_error
from iolab.analysis.stopping import MIN_BATCHES, batch_interval


def _series(rng: random.Random, n: int) -> list[float]:
    """n seconds around 100 of AR(1) noise, from none to nearly a random walk, now and then a step or a stall."""
    phi, level, x, out = rng.choice([0.0, 0.5, 0.9, 0.99]), 100.0, 0.0, []
    for i in range(n):
        x = phi * x + rng.gauss(0, rng.choice([0.1, 5.0, 30.0]))
        if rng.random() < 0.02:
            level *= rng.choice([0.3, 2.0])
        out.append(0.0 if rng.random() < 0.01 else max(level + x, 0.0) + (i % 3))
    return out


@pytest.mark.parametrize("seed", range(20))
def test_an_interval_holds_at_least_min_batches_and_relative_error_answers(seed):
    rng = random.Random(seed)
    for n in [*range(0, 3 * MIN_BATCHES), *rng.sample(range(3 * MIN_BATCHES, 600), 20)]:
        values = _series(rng, n)
        interval = batch_interval(values)
        if n < MIN_BATCHES:
            assert interval is None and relative_error(values) is None
            continue
        assert interval is not None and interval.batches >= MIN_BATCHES, (n, interval)
        assert interval.batches * interval.batch_s <= n
        error = relative_error(values)
        assert (error is None) == (interval.mean <= 0) and (error is None or error > 0)
