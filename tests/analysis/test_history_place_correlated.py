"""Where a change point is reported in correlated runs: by its split's likelihood under the history's AR(1) noise,
the runs prewhitened, not by least squares (issue 40, eleventh look; `analysis.history.PLACE_GLS`).

Under correlated noise the least-squares gain wanders with the noise's slow swings, so its flat top is wider and
its peak lands further from the step; prewhitened, the step is one sharp run (its whole size at its first run,
1 - phi of it after). A step placed more than 3 runs off is a step missed and a false change point in one.
"""

from __future__ import annotations

import numpy as np
import pytest

from iolab.analysis import history
from iolab.analysis.history import ChangePointParams, analyse_history
from iolab.analysis.history_noise import gls_split_gains, split_gains

PARAMS = ChangePointParams()
NEAR = 3  # a change point within this many runs of the step is in the right place


def _ar1(rng: np.random.Generator, n: int, phi: float) -> np.ndarray:
    """n runs of stationary AR(1) noise of marginal sd 1."""
    shocks = rng.standard_normal(n) * np.sqrt(1.0 - phi * phi)
    x = np.empty(n)
    x[0] = rng.standard_normal()
    for t in range(1, n):
        x[t] = phi * x[t - 1] + shocks[t]
    return x


def _series(seed: int, phi: float, step_sds: float) -> tuple[np.ndarray, int]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 150))
    at = int(rng.integers(20, n - 20))
    x = _ar1(rng, n, phi)
    x[at:] -= step_sds
    return x, at


def _within(seed: int, phi: float, step_sds: float) -> tuple[bool, bool]:
    """(placed within NEAR runs under AR(1) noise, by least squares) for one step, both from its least-squares
    peak, each tempered by the variance its gains are in."""
    x, at = _series(seed, phi, step_sds)
    k = np.arange(PARAMS.min_size, len(x) - PARAMS.min_size + 1)
    peak = int(k[np.argmax(split_gains(x, k))])
    (gls,) = (p.at for p in history._placed(x, [peak], PARAMS, 1.0 - phi * phi, phi))
    (ols,) = (p.at for p in history._placed(x, [peak], PARAMS, (1.0 + phi) / (1.0 - phi), 0.0))
    return abs(gls - at) <= NEAR, abs(ols - at) <= NEAR


def test_the_gains_under_independent_noise_are_the_least_squares_gains():
    x = np.random.default_rng(1).standard_normal(50)
    k = np.arange(5, 46)
    assert np.allclose(gls_split_gains(x, k, 0.0), split_gains(x, k))


def test_a_step_in_correlated_runs_is_placed_within_three_runs_more_often_under_its_noise():
    """2-sd steps at phi 0.7 in 300 generated series: within 3 runs 248 times placed under AR(1) noise against
    228 by least squares (measured); least squares fails."""
    cases = [_within(seed, 0.7, 2.0) for seed in range(300)]
    gls, ols = sum(g for g, _ in cases), sum(o for _, o in cases)
    assert gls >= ols + 12, (gls, ols)


@pytest.mark.parametrize(("seed", "off_by"), [(56, -6), (76, -4), (128, -11)])
def test_history_places_by_its_correlated_noise(monkeypatch, seed, off_by):
    """3-sd steps at phi 0.6 and COV 4% that `analyse_history` places within 3 runs, and 4-11 runs off with
    PLACE_GLS off. (Of 200 such series the two placements differ in 6: these and one more are within 3 runs only
    under the noise, 2 only by least squares.)"""
    x, at = _series(seed, 0.6, 3.0)
    values = list(1.0 + 0.04 * x)
    (found,) = analyse_history(values).change_points
    assert abs(found.index - at) <= NEAR
    monkeypatch.setattr(history, "PLACE_GLS", False)
    (ols,) = analyse_history(values).change_points
    assert ols.index - at == off_by
