"""A dip ends: no event still low when the series ends is reported as a dip (`analysis.dips._unended`).

TEL-DIP says "dipped and recovered" and gives the level after. A fall the step test declined (a 20-25% step in
noise: its median after not 25% below, some of its seconds are) that lasted to the end was reported as a
transient with no level after (NaN, printed "-"), or, its last second noise-high, as a dip that recovered in that
second. Now such a fall is a step where its median is `drop` below the level, else nothing; a dip back for less
than a dip must last is back beyond the noise (`_recovered`), as the step test asks.

The property: over generated runs ending in a fall of every depth (10-60%), at every noise level (COV 1-15%),
logged every 0.5, 1 or 2 s, with the last seconds as drawn or one noise-high (the fall never ends), no transient
reaches into the run's last `min_duration_s`, and every transient has a level after."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iolab.analysis.dips import DipParams, detect_dips


def _fall_to_the_end(seed: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    rng = np.random.default_rng([seed, 40])
    n = int(rng.integers(40, 400))
    interval = float(rng.choice([0.5, 1.0, 2.0]))
    cov, depth = float(rng.uniform(0.01, 0.15)), float(rng.uniform(0.10, 0.60))
    x = 1000.0 * (1.0 + cov * rng.standard_normal(n))
    at = int(rng.integers(n // 4, n - 4))
    x[at:] *= 1.0 - depth
    if rng.random() < 0.5:  # the last second noise-high: 1-3 sd above the level after
        x[-1] = 1000.0 * (1.0 - depth) * (1.0 + float(rng.uniform(1.0, 3.0)) * cov)
    return np.arange(1, n + 1) * interval, x, depth, at * interval


@pytest.mark.parametrize("seed", range(300))
def test_no_dip_is_reported_that_did_not_end(seed):
    t, x, depth, at = _fall_to_the_end(seed)
    report = detect_dips(t, x)
    for event in report.dips:
        if event.kind == "transient" and event.low()[1] > at:
            assert math.isfinite(event.level_after), (depth, event)
            # nor back only for less than a dip must last: the fall's one noise-high last second is not its end
            assert event.low()[1] <= t[-1] - report.params.min_duration_s, (depth, event)


@pytest.mark.parametrize("seed", range(10))
def test_a_fall_of_22_percent_to_the_end_is_no_dip(seed):
    """Shallower than a step by its median, a few of its seconds 25% down: not a dip (it did not end)."""
    x = 1000.0 * (1.0 + 0.05 * np.random.default_rng(seed).standard_normal(300))
    x[240:] *= 0.78
    assert [d for d in detect_dips(np.arange(1, 301), x).dips if d.kind == "transient"] == []


def test_a_fall_after_the_step_it_found_is_a_second_step():
    x = 1000.0 * (1.0 + 0.02 * np.random.default_rng(7).standard_normal(300))
    x[100:] *= 0.6
    x[250:] *= 0.5
    events = detect_dips(np.arange(1, 301), x).dips
    assert [d.kind for d in events] == ["step", "step"]
    assert abs(events[0].onset_s - 100.0) <= 2.0 and events[1].onset_s == pytest.approx(250.0)
    assert events[1].level_before == pytest.approx(600.0, rel=0.03)
    assert events[1].depth == pytest.approx(0.5, abs=0.03)


def test_switched_off_a_dip_back_only_in_its_last_second_still_ends():
    """The class's boundary: with the recovery test off (`recovered_z` None) a fall back for less than a dip
    must last is not judged, and the last-second dip is the step it was."""
    rng = np.random.default_rng(1)
    x = np.full(120, 1000.0) + rng.normal(0, 30, 120)
    x[114:119] = 300
    (event,) = detect_dips(np.arange(1, 121), x, DipParams(recovered_z=None)).dips
    assert event.kind == "step"
