"""A short history's phi is judged at the upper end of what its runs allow (`NoiseModel.phi_upper`, issue 40):
30-199-run histories read phi with an sd of 0.1 or more, and nearly every false change point there far from any
step came with phi read low (0.45 for 0.70, 0.15 for 0.64), the wander of correlated runs taken for a step."""

from __future__ import annotations

import math

import numpy as np

from iolab.analysis import history_noise
from iolab.analysis.history import change_points
from iolab.analysis.history_noise import NoiseModel, noise_scale


def _ar1(seed: int, n: int, phi: float, cov: float = 0.05) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shocks = rng.standard_normal(n)
    e = np.empty(n)
    e[0] = shocks[0]
    for i in range(1, n):
        e[i] = phi * e[i - 1] + math.sqrt(1.0 - phi * phi) * shocks[i]
    return 1.0 + cov * e


def test_the_upper_end_covers_the_true_phi_as_a_one_sided_bound_should():
    """AR(1) runs, 40-199 of them, phi 0.3-0.7: the reading alone lies at or above the true phi in about half
    of the histories (and often far below it); one sampling sd up, in about 84% (a one-sided 1-sd bound)."""
    inside = 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        n, phi = int(rng.integers(40, 200)), float(rng.uniform(0.3, 0.7))
        sigma, read = noise_scale(_ar1(10_000 + seed, n, phi))
        inside += phi <= NoiseModel(sigma, read, None, None, n).phi_upper  # type: ignore[arg-type]
    assert 0.74 <= inside / 200 <= 0.92, inside


def test_the_margin_shrinks_with_the_runs_and_is_none_when_phi_is_known():
    model = NoiseModel(0.05, 0.5, None, None, 100)  # type: ignore[arg-type]
    assert model.phi_upper == 0.5 + history_noise.PHI_MARGIN * math.sqrt(0.75 / 100)
    assert NoiseModel(0.05, 0.5, None, None, 10_000).phi_upper < 0.51  # type: ignore[arg-type]
    assert NoiseModel(0.05, 0.5, None, None).phi_upper == 0.5  # type: ignore[arg-type]
    assert NoiseModel(0.05, 0.89, None, None, 30).phi_upper == history_noise.MAX_PHI  # type: ignore[arg-type]


def test_short_correlated_histories_without_a_step_give_no_change_point():
    """40-119 runs, phi 0.4-0.7, COV 5%, no step (seeds whose low phi reading made a change point before)."""
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        n, phi = int(rng.integers(40, 120)), float(rng.uniform(0.4, 0.7))
        assert change_points(_ar1(seed, n, phi) * 1e9) == [], seed


# Of seeds 0-999, those with a change point when phi is judged as read (19 of them; one sd up: 6, and these 13 not).
SEEDS = [5, 125, 269, 375, 440, 476, 514, 534, 554, 563, 598, 807, 877]
