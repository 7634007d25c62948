"""The space bench/simulated_histories.py draws from spans what monitoring presents beyond issue 40's first
list: AR(1) runs with phi up to 0.8 (0.7-0.8 reported as a bin of its own), weekly cycles without a daily
one, and holidays where the cycles pause."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import simulated_histories as sh  # noqa: E402


def test_the_space_holds_weekly_only_cycles_holidays_and_phi_past_0_7():
    knobs = [sh.draw(seed, 700).knobs for seed in range(150)]
    # A weekly cycle without a daily one in a quarter of the histories (an eighth came from the first draw alone).
    assert sum(1 for k in knobs if k["weekly"] and not k["daily"]) / len(knobs) > 0.2
    assert any(k["holiday_runs"] for k in knobs) and all(k["daily"] or k["weekly"] for k in knobs if k["holiday_runs"])
    phis = [k["phi"] for k in knobs]
    assert any(p > 0.7 for p in phis) and max(phis) < 0.9  # 0.8-0.9 since the fourth round, a bin of its own
    assert sh._bin(0.75, sh.PHI_BINS) == "0.7-0.8"


def test_a_holiday_pauses_the_cycle_and_keeps_the_level():
    t = 1.7e9 + sh.HOUR * np.arange(24 * 40)
    for seed in range(40):
        weekly, cycle, holidays = sh._cycles(np.random.default_rng(seed), seed, t, 0.04, 0.0)
        if holidays.any():
            assert (cycle[holidays] == 0.0).all() and np.abs(cycle[~holidays]).max() > 0.03
            return
    raise AssertionError("no holiday in 40 seeds of 40 days")
