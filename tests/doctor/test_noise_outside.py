"""The correlation of seconds in a row a dip is judged by (doctor.rules.telemetry.noise_outside): a confirmed
event's own level is taken out of it, an event not confirmed stays in it as it is. Generated over white-noise runs
of 20-60 s, each with one rectangle 4-10 s long and 40-70% deep: confirmed, the run reads as the white noise it is
(a trace's real stall must not make its seconds look alike); not confirmed, the dip's level makes its seconds
look alike (a short clean run's wander keeps the correlation it is judged by, docs/dips.md round 56)."""

from __future__ import annotations

import numpy as np

from iolab.analysis.dips import detect_dips
from iolab.doctor.rules import telemetry


def _runs():
    for seed in range(60):
        rng = np.random.default_rng([seed, 4058])
        n = int(rng.integers(20, 61))
        x = 400e6 * (1.0 + 0.03 * rng.standard_normal(n))
        length = int(rng.integers(4, 11))
        start = int(rng.integers(3, n - length - 3))
        x[start : start + length] *= 1.0 - rng.uniform(0.4, 0.7)
        times, values = [float(t) for t in range(1, n + 1)], list(x)
        events = detect_dips(times, values).dips
        if len(events) == 1:
            yield times, values, events


def test_a_confirmed_dips_level_is_out_of_the_correlation_and_an_unconfirmed_ones_is_in() -> None:
    runs = list(_runs())
    assert len(runs) >= 50
    confirmed = [telemetry.noise_outside(t, v, events, events)[1] for t, v, events in runs]
    unconfirmed = [telemetry.noise_outside(t, v, events, [])[1] for t, v, events in runs]
    assert np.median(confirmed) < 0.25, confirmed
    assert np.median(unconfirmed) > 0.6, unconfirmed
    assert all(c < u for c, u in zip(confirmed, unconfirmed, strict=True))
