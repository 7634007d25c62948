"""The tail a dip is judged against in long runs, fitted to the run's own windows (analysis.window_tail).

Issue 40's long-run scenario: t3 shocks, each followed by an AR(1) decay second, gave 2.2 false dips per
hour-long run against a cut that reads a few seconds' mean as Gaussian. The floor here must stand near the
Gaussian quantile for Gaussian seconds, far beyond it for heavy-tailed ones, and refuse to guess on too few."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from iolab.analysis.window_tail import MIN_BLOCKS, block_lows, chance_floor


def test_block_lows_take_the_lowest_window_starting_in_each_block():
    run = np.array([0.0, 0.0, -1.0, -1.0, 0.0, 0.0, 0.0, -2.0])
    # windows of 2: 0, -0.5, -1, -0.5, 0, 0, -1; blocks of 2 starting windows: (0, -0.5), (-1, -0.5), (0, 0)
    assert block_lows([run], 2).tolist() == [-0.5, -1.0, 0.0]
    assert len(block_lows([run[:1]], 2)) == 0


def test_too_few_blocks_give_no_floor():
    rng = np.random.default_rng(1)
    assert chance_floor([rng.standard_normal(2 * MIN_BLOCKS - 2)], 2, 1e-5) is None
    assert chance_floor([rng.standard_normal(2 * MIN_BLOCKS + 2)], 2, 1e-5) is not None


@pytest.mark.parametrize("seed", range(10))
def test_gaussian_seconds_give_a_floor_near_the_gaussian_quantile(seed):
    """2,000 Gaussian seconds, windows of 2: the mean of 2 has sd 1/sqrt 2. At a chance of 5e-6 per place the
    floor stands between 0.85 and 1.7 times the Gaussian quantile (0.89-1.60 over these seeds: the fit of
    ten blocks errs both ways, a little outward on the whole); where it falls short the Gaussian cut binds."""
    rng = np.random.default_rng(seed)
    floor = chance_floor([rng.standard_normal(2000)], 2, 5e-6)
    gaussian = NormalDist().inv_cdf(5e-6) / math.sqrt(2)
    assert floor is not None
    assert 0.85 <= floor / gaussian <= 1.7, (floor, gaussian)


@pytest.mark.parametrize("seed", range(5))
def test_heavy_tailed_seconds_give_a_floor_past_their_own_deepest_window(seed):
    """Student t3 seconds scaled to unit sd: the Gaussian cut of the same sd is passed by a few of their own
    windows; the fitted floor lies beyond the deepest of them."""
    rng = np.random.default_rng(seed)
    x = rng.standard_t(3, 2000) / math.sqrt(3)
    floor = chance_floor([x], 2, 5e-6)
    windows = (x[1:] + x[:-1]) / 2
    assert floor is not None
    assert floor < windows.min()
    assert floor < 1.3 * NormalDist().inv_cdf(5e-6) / math.sqrt(2)


@pytest.mark.parametrize("seed", range(5))
def test_one_other_deep_window_does_not_carry_the_floor_past_itself(seed):
    """Gaussian seconds with one other deep event (a real dip, or the run's largest shock) among the ten lowest
    blocks: the floor stays near the Gaussian quantile, so a dip as deep as that event still lies beyond it.
    The mean excess as the scale let the one event carry the floor past itself (a planted 2 s dip beside a
    t3 shock: neither was found)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(1000)
    x[500:502] = -8.0
    floor = chance_floor([x], 2, 1e-5)
    assert floor is not None
    assert -8.0 < floor < NormalDist().inv_cdf(1e-5) / math.sqrt(2) * 0.85
