"""A cycle's profile is taken out of a history only where it passes its own test against the runs' noise
(`history_noise._shown`, issue 40, thirteenth look).

Six harmonic coefficients fitted to three to eight days of correlated runs make a profile of a few percent out of
the noise's wander alone, and a profile taken out puts its swings back into every day as steps. Tested against the
AR(1) noise the first look reads (a Wald chi2 at PROFILE_ALPHA), a cycle-free history keeps its runs as they came,
and a cycle the runs show plainly is still taken out."""

from __future__ import annotations

import functools

import numpy as np

from iolab.analysis import history_noise
from iolab.analysis.history import analyse_history
from iolab.report.wording import cycle_notes

HOUR = 3600.0


@functools.cache
def _draw(seed: int, cycle: float, days: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """(times, runs): `days` to 8 days of hourly runs, AR(1) noise of phi 0.4-0.7 at COV 4-6%, and a daily sine of
    `cycle`."""
    rng = np.random.default_rng([seed, 48])
    n = int(rng.integers(24 * days, 192))
    phi, cov = float(rng.uniform(0.4, 0.7)), float(rng.uniform(0.04, 0.06))
    shocks = rng.standard_normal(n) * cov * np.sqrt(1.0 - phi * phi)
    noise = np.empty(n)
    noise[0] = cov * rng.standard_normal()
    for i in range(1, n):
        noise[i] = phi * noise[i - 1] + shocks[i]
    t = 1.7e9 + HOUR * np.arange(n)
    return t, 1e9 * (1.0 + cycle * np.sin(2 * np.pi * (t % 86400.0) / 86400.0)) * (1.0 + noise)


def _taken_out(cycle: float, seeds: range, days: int = 3) -> list[float]:
    """The daily profile taken out of each history (0 where none was)."""
    out = []
    for seed in seeds:
        times, runs = _draw(seed, cycle, days)
        noise = analyse_history(runs, None, times).noise
        assert noise is not None
        daily = noise.daily
        out.append(daily.amplitude if daily.state == "removed" else 0.0)
    return out


def test_the_noise_is_not_taken_out_as_a_cycle():
    """12 cycle-free histories: no profile taken out (without the test, 0.3-2.5% ones out of every history)."""
    taken = _taken_out(0.0, range(12))
    assert max(taken) == 0.0, taken


def test_a_plain_cycle_is_still_taken_out():
    """A 15% daily cycle over five to eight days of the same noise passes its test in every history and is taken
    out near its size. (A 10% one fails in one history of eight: at phi 0.7 the noise's wander at a day's frequency
    is 3.8 times what independent runs put there, and over six days a 10% sine is about four of its sds.)"""
    taken = _taken_out(0.15, range(6), days=5)
    assert min(taken) > 0.12, taken


def test_switched_off_the_noise_is_taken_out(monkeypatch):
    """The check can fail: with every fitted profile taken out, the cycle-free histories lose one."""
    monkeypatch.setattr(history_noise, "PROFILE_TEST", False)
    taken = _taken_out(0.0, range(12))
    assert max(taken) > 0.0, taken


def test_a_profile_left_in_is_said():
    """A history whose daily profile failed its test says so in words, not nothing."""
    times, runs = _draw(0, 0.0)
    noise = analyse_history(runs, None, times).noise
    assert noise is not None and noise.daily.state == "not shown"
    assert "no daily cycle taken out: what the runs show of one is within their noise" in cycle_notes(noise, False)
