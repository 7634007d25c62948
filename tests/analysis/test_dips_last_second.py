"""A dip that recovers in the series' last second is a dip, not a step (`analysis.dips._recovered`).

The segmentation's segments hold at least two seconds, so a dip back at the level only in the last second shares
the last segment with one of its own low seconds; that segment's mean stayed 25% below the level before, and the
dip was read as a step (TEL-STEP declined it or gave it the wrong length). Now the last seconds back at the level
before, beyond the noise of the level after, make it a dip that ended; a real step whose last second is noise-high
stays a step."""

from __future__ import annotations

import numpy as np
import pytest

from iolab.analysis.dips import DipParams, detect_dips

SECONDS = 120


def _noisy(seed: int, cov: float, n: int = SECONDS) -> np.ndarray:
    return 1000.0 * (1.0 + np.random.default_rng(seed).normal(0.0, cov, n))


@pytest.mark.parametrize("interval", [1.0, 0.5, 2.0])
@pytest.mark.parametrize("seed", range(8))
def test_a_dip_back_in_the_last_window_is_a_transient_with_its_onset_and_length(seed, interval):
    x = _noisy(seed, 0.03)
    x[SECONDS - 6 : SECONDS - 1] = 300.0  # windows 115..119 low, window 120 back at the level
    t = np.arange(1, SECONDS + 1) * interval
    (dip,) = detect_dips(t, x).dips
    assert dip.kind == "transient"
    assert dip.onset_s == pytest.approx((SECONDS - 6) * interval)
    assert dip.duration_s == pytest.approx(5 * interval)
    assert dip.level_after == pytest.approx(x[-1])


def test_the_issue_s_reproducer():
    rng = np.random.default_rng(1)
    x = np.full(120, 1000.0) + rng.normal(0, 30, 120)
    x[114:119] = 300
    (dip,) = detect_dips(np.arange(1, 121), x).dips
    assert (dip.kind, dip.onset_s, dip.duration_s) == ("transient", 114.0, 5.0)


def test_switched_off_the_dip_back_in_the_last_second_is_the_step_it_was():
    rng = np.random.default_rng(1)
    x = np.full(120, 1000.0) + rng.normal(0, 30, 120)
    x[114:119] = 300
    (event,) = detect_dips(np.arange(1, 121), x, DipParams(recovered_z=None)).dips
    assert event.kind == "step"


@pytest.mark.parametrize("seed", range(20))
def test_a_shallow_noisy_step_with_a_high_last_second_is_still_a_step(seed):
    """A 30% step in seconds that vary 12%: its last second 1.5 sd above the level after, past the bar the last
    seconds must clear (12.5% below the level before) but within 2 sd of the level after, is noise about it."""
    x = _noisy(seed, 0.12)
    x[80:] *= 0.7
    x[-2:] = 700.0, 700.0 + 1.5 * 120.0  # the one before at the level after: one second high, not two
    events = [d for d in detect_dips(np.arange(1, SECONDS + 1), x).dips if d.onset_s >= 70]
    assert [d.kind for d in events] == ["step"] and abs(events[0].onset_s - 80.0) <= 2.0


@pytest.mark.parametrize("seed", range(20))
def test_a_step_with_noise_is_still_a_step(seed):
    x = _noisy(seed, 0.05)
    x[70:] *= 0.5
    events = detect_dips(np.arange(1, SECONDS + 1), x).dips
    assert [(d.kind, d.onset_s) for d in events if d.onset_s >= 60] == [("step", 70.0)]


@pytest.mark.parametrize("seed", range(8))
def test_a_last_second_back_nearer_the_level_before_than_the_dip_is_back(seed):
    """The bar for "back" is the midpoint of the two levels where that is below the shoulder: a last second at 82%
    of the level (a noisy second at the level, 12.5% below it one time in five at COV 15%) after seconds at 20%
    is back; with the shoulder alone as the bar, the dip was the step it was."""
    x = _noisy(seed, 0.02)
    x[SECONDS - 6 : SECONDS - 1] = 200.0
    x[-1] = 820.0
    (dip,) = detect_dips(np.arange(1, SECONDS + 1), x).dips
    assert (dip.kind, dip.onset_s, dip.duration_s) == ("transient", SECONDS - 6.0, 5.0)
