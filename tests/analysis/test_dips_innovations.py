"""Short dips read on the run's AR(1) innovations (issue 40's eighth look, `analysis.innovations`).

In correlated Gaussian noise the mean of a 2 s dip's log seconds throws away what the seconds around it predict:
at phi 0.6 a 2 s rectangle stands 1.54 D / sigma out of the innovations against 1.12 D / sigma as a mean. The
rules read dips of at most `whitened_s` in runs read as Gaussian there instead, on the linear scale, at a chance
per run of their own."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from iolab.analysis.innovations import shapes, shortfall_z
from iolab.doctor.rules import telemetry
from tests.analysis.test_dips_short import _findings


def _ar1(seed: int, n: int, cov: float, phi: float, t3: bool = False) -> np.ndarray:
    """Relative AR(1) noise of marginal sd `cov`: Gaussian shocks, or Student t3 ones scaled to unit variance."""
    rng = np.random.default_rng([seed, 44])
    shocks = rng.standard_t(3, n) / np.sqrt(3.0) if t3 else rng.standard_normal(n)
    shocks *= cov * np.sqrt(1.0 - phi**2)
    e = np.empty(n)
    e[0] = shocks[0] / np.sqrt(1.0 - phi**2)
    for t in range(1, n):
        e[t] = phi * e[t - 1] + shocks[t]
    return e


def test_the_shortfall_of_a_stretch_of_clean_noise_is_a_standard_normal_whatever_its_correlation():
    """Its own AR(1) read outside the stretch, the statistic of a clean run's stretch has mean 0 and sd 1 at
    phi 0 and 0.6 alike (a phi read too small, or the dip's seconds left in the sd, would move both); at COV
    15%, where the log of the seconds leans low, too."""
    for phi in (0.0, 0.6):
        runs = [1000.0 * (1.0 + _ar1(seed, 150, 0.15, phi)) for seed in range(200)]
        for k in range(3):  # each shape alone
            z = [shortfall_z(x, 70, 72, 1000.0, None, lambda m, k=k: shapes(m)[k : k + 1]) for x in runs]
            assert abs(float(np.mean(z))) < 0.2 and 0.85 < float(np.std(z)) < 1.15, (phi, k, np.mean(z), np.std(z))


def _planted(seed: int, depth: float) -> tuple[np.ndarray, int]:
    """A 80 s run at COV 12%, phi 0.6, Gaussian, with a 2 s rectangle `depth` deep at a drawn place."""
    at = int(np.random.default_rng([seed, 45]).integers(20, 60))
    loss = np.zeros(80)
    loss[at : at + 2] = depth
    return 1000.0 * (1.0 - loss) * (1.0 + _ar1(seed, 80, 0.12, 0.6)), at


def _found(depth: float, seeds: range) -> int:
    hits = 0
    for seed in seeds:
        x, at = _planted(seed, depth)
        hits += any(onset < at + 2 and onset + length > at for onset, length in _findings(x))
    return hits


def test_a_2_s_dip_in_correlated_gaussian_noise_is_found_on_the_innovations():
    """2 s rectangles 40% deep (3.3x the seconds' sd) in 40 such runs: all found (33 with `whitened_penalty`
    None: the switch-off this test fails on)."""
    assert _found(0.4, range(40)) >= 38


def test_the_mean_of_logs_alone_misses_some_of_them(monkeypatch):
    """The same 40 runs read by the mean of logs alone: 33 found (the gap the innovations close)."""
    monkeypatch.setattr(telemetry, "PARAMS", replace(telemetry.PARAMS, whitened_penalty=None))
    assert _found(0.4, range(40)) <= 35


def test_a_run_with_heavier_shocks_keeps_the_mean_test():
    """In a t3 run a shock and its decay second make a 2 s stretch by chance: the innovations are not read
    there (None), and they are in its Gaussian twin."""
    times = [float(t) for t in range(1, 301)]
    for seed in range(3):
        t3 = (1000.0 * (1.0 + _ar1(seed, 300, 0.1, 0.3, t3=True))).tolist()
        gaussian = (1000.0 * (1.0 + _ar1(seed, 300, 0.1, 0.3))).tolist()
        event = telemetry.Dip("transient", 150.0, 2.0, 0.3, 0.3, 1000.0, 700.0, 0.0, 1000.0, 1000.0)
        assert telemetry._short_gaussian_z(event, times, t3, [False] * 300) is None
        assert telemetry._short_gaussian_z(event, times, gaussian, [False] * 300) is not None
