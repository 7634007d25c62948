"""A dip that comes back within a few runs is a level only if it holds once a burst of three is set aside
(`analysis.history._brief`, issue 40): a burst of three bad runs too shallow to be named outlier runs (45-60% of
the level at COV 8-10%) was bracketed by two change points, a five- or six-run level of its own, in 6 of 57
false change points of 200-1,999-run histories (tuning seeds 7,000,000+ of bench/simulated_histories.py)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from iolab.analysis.history import analyse_history

HOUR = 3600.0
BENCH = Path(__file__).resolve().parents[2] / "bench"


def _burst(seed: int, heavy: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """600 hourly runs at COV 8-10% (Gaussian or t4), three in a row at 45-60% of the level."""
    rng = np.random.default_rng(1000 + seed)
    cov = float(rng.uniform(0.08, 0.10))
    noise = np.random.default_rng(seed)
    e = noise.standard_t(4, 600) / math.sqrt(2.0) if heavy else noise.standard_normal(600)
    t, x = 1.7e9 + HOUR * np.arange(600), 1e9 * (1.0 + cov * e)
    at = int(rng.integers(100, 500))
    x[at : at + 3] *= rng.uniform(0.45, 0.60, 3)
    return t, x, at


# Of seeds 0-199 of `_burst`, the ones whose burst two change points bracketed before (the rest never were).
@pytest.mark.parametrize(("seed", "heavy"), [(165, False), (31, True), (0, False), (1, True)])
def test_a_shallow_burst_of_three_is_no_level(seed, heavy):
    t, x, at = _burst(seed, heavy)
    judged = analyse_history(x, times=t)
    assert not [c.index for c in judged.change_points if at - 5 <= c.index <= at + 8]


@pytest.mark.parametrize("seed", [7_000_013, 7_000_588, 7_000_997])
def test_the_envelope_benchs_bursts_are_no_level(seed):
    """The bench's histories whose bursts of three (daily, weekly and 12 h cycles, COV 8-10%) passed for a level."""
    sys.path.insert(0, str(BENCH))
    import simulated_histories as sh

    h = sh.draw(seed, sh.SHORT_RUNS)
    found = [c.index for c in analyse_history(h.values, times=h.times).change_points]
    assert not [i for i in found for b in h.bursts if b - 5 <= i <= b + 8], (found, h.bursts)


@pytest.mark.parametrize("seed", range(6))
def test_a_real_short_dip_is_still_a_level(seed):
    """Eight runs at -25% that come back, COV 3%: the five runs left once the three lowest are set aside still
    sit far off, so both change points stand."""
    rng = np.random.default_rng(2000 + seed)
    t, x = 1.7e9 + HOUR * np.arange(400), 1e9 * (1.0 + 0.03 * rng.standard_normal(400))
    at = int(rng.integers(100, 300))
    x[at : at + 8] *= 0.75
    found = [c.index for c in analyse_history(x, times=t).change_points]
    assert len(found) == 2 and abs(found[0] - at) <= 1 and abs(found[1] - at - 8) <= 1, found


def test_the_short_level_rule_alone_keeps_a_shallow_burst_from_being_a_level(monkeypatch):
    """Two defences stand between a shallow burst of three and a level of its own: `_bursts` sets it aside before
    the segmentation, and `_brief` judges a short level that comes back without its three farthest runs. Each must
    hold alone: with the set-aside off, seed 165's burst (bracketed by change points at its first run and five
    runs on before `_brief`) is still no level."""
    import iolab.analysis.history as module

    monkeypatch.setattr(module, "_LEVEL_BURSTS", False)
    t, x, at = _burst(165, False)
    assert not [c.index for c in analyse_history(x, times=t).change_points if at - 5 <= c.index <= at + 8]


def test_a_dip_that_comes_back_is_judged_without_its_burst_when_it_is_five_to_nine_runs_long():
    """`_brief` is the rule's scope: a short level between two sides that lie off it the same way (a dip that comes
    back) is judged without its three farthest runs when it has 5-9 runs. Shorter would leave fewer than two runs
    to judge it by; ten (twice the default min_size) is a level of its own. A step (sides off opposite ways) never
    is, nor a dip at the series' edge with no side beyond it."""
    from iolab.analysis.history import _brief

    scope = []
    for length in range(3, 13):
        x = np.r_[np.ones(10), np.full(length, 0.5), np.ones(10)]
        if _brief(x, 0, 10, 10 + length, 20 + length):
            scope.append(length)
        stair = np.r_[np.ones(10), np.full(length, 0.5), np.zeros(10)]
        assert not _brief(stair, 0, 10, 10 + length, 20 + length)
    assert scope == [5, 6, 7, 8, 9]
