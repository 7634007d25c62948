"""The placement floor's oracle (bench/history_placement_floor.py): a step it cannot place within 3 runs is a false
change point any method reporting the step makes (issue 40, eighteenth look). The oracle must read the noise's own
law and place by the posterior's best 3-run neighbourhood, or the floor it prints is too high."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import history_placement_floor as floor  # noqa: E402
import simulated_histories as sh  # noqa: E402


def _t4_step(seed: int, size: float = -0.08, cov: float = 0.05, phi: float = 0.3, n: int = 120) -> sh.History:
    """A step 1.6 innovation sds deep in AR(1) noise with Student-t4 innovations, 40-80 runs in."""
    rng = np.random.default_rng(seed)
    shocks = rng.standard_t(4, n) / math.sqrt(2.0)
    at = int(rng.integers(40, 80))
    return sh.one_step(shocks, phi, size, cov, at, {"phi": phi, "cov": cov, "noise": "t4"})


def test_the_oracle_places_by_the_noise_law_and_the_best_neighbourhood():
    """Over 100 such steps the t4 oracle's neighbourhood rule places 91 within 3 runs; read as Gaussian it places
    84, and the likelihood's peak 85 (a floor read either way would count 6-7 more false points than it must)."""
    told = peak = gaussian = 0
    for seed in range(100):
        h = _t4_step(seed)
        best, at_peak = floor.placed(h, 0)
        told, peak = told + best, peak + at_peak
        h.knobs["noise"] = "gaussian"
        gaussian += floor.placed(h, 0)[0]
    assert told >= gaussian + 5 and told >= peak + 4, (told, gaussian, peak)


def test_a_clear_step_is_placed_and_a_ramp_is_left_out():
    assert all(floor.placed(_t4_step(s, size=-0.4), 0) == (True, True) for s in range(5))
    ramp = _t4_step(0)
    ramp.ramps[0] = 10
    assert floor.placed(ramp, 0) is None


def test_the_poisson_interval_is_garwood_s():
    low, high = floor.poisson_interval(53)
    assert abs(low - 39.70) < 0.01 and abs(high - 69.33) < 0.01
    low, high = floor.poisson_interval(0)
    assert low == 0.0 and abs(high - 3.689) < 0.001
