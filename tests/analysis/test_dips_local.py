"""An event stands only against the level beside it (round 52's `DipParams.local_s`, `dips._stands_locally`).

The run's level is one median, so in a run whose level drifts a stretch of the low end where the noise wanders a
little lower lies 12.5% below that median, holds one noise second 25% below it, and was an event, though against
the seconds beside it (the drift's own level there) it is a few percent low. With the check switched off (None)
the clean drifting runs below hold 26 events against 18 (`test_a_drifting_level_is_no_run_of_dips`); a dip
planted on them is found as before (`test_a_dip_on_a_drifting_level_is_still_found`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from iolab.analysis.dips import DipParams, detect_dips

SECONDS = 600


def _drifting(seed: int, dip: tuple[int, int, float] | None = None) -> np.ndarray:
    """A run whose level rises linearly by 40% over its 600 s (0.8 to 1.2 of 1000), AR(1) noise of COV 6% and
    phi 0.7, with `dip` (first second, length, depth) planted when given."""
    rng = np.random.default_rng([seed, 52])
    level = 1.0 + 0.4 * (np.arange(SECONDS) / (SECONDS - 1) - 0.5)
    shocks = 0.06 * np.sqrt(1.0 - 0.49) * rng.standard_normal(SECONDS)
    e = np.zeros(SECONDS)
    for t in range(1, SECONDS):
        e[t] = 0.7 * e[t - 1] + shocks[t]
    x = 1000.0 * level * (1.0 + e)
    if dip is not None:
        at, length, depth = dip
        x[at : at + length] *= 1.0 - depth
    return x


def _events(x: np.ndarray, params: DipParams) -> list:
    return [d for d in detect_dips(np.arange(1, SECONDS + 1, dtype=float), x, params).dips if d.kind == "transient"]


def test_a_drifting_level_is_no_run_of_dips():
    """16 clean drifting runs: at most 20 events in all (as shipped 18, about one a run: the drift's own low start;
    switched off 26, the low end's noise read as further dips)."""
    on = sum(len(_events(_drifting(seed), DipParams())) for seed in range(16))
    off = sum(len(_events(_drifting(seed), replace(DipParams(), local_s=None))) for seed in range(16))
    assert on <= 20, (on, off)
    assert off > on


def test_a_dip_on_a_drifting_level_is_still_found():
    """A rectangle of 2-60 s, 40% deep, anywhere on the drifting run (its low end too) is found: the seconds beside
    it are the drift's level there. (Near the low end it joins the drift's own low stretch and is dated from there,
    with the check and without it alike.)"""
    for seed in range(16):
        rng = np.random.default_rng([seed, 520])
        length = int(rng.integers(2, 61))
        at = int(rng.integers(40, SECONDS - length - 40))
        dips = _events(_drifting(seed, (at, length, 0.4)), DipParams())
        hit = [d for d in dips if d.onset_s < at + length and d.onset_s + d.duration_s > at]
        assert hit, (seed, at, length)
