"""The envelope bench's known-noise placement (bench/simulated_histories.py, `oracle_placed`): the bound beside
the false change points that placing a found step 4-10 runs off makes (issue 40, fifth round)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import simulated_histories as sh  # noqa: E402


def _step(seed: int, phi: float, size: float, cov: float = 0.05, n: int = 200) -> sh.History:
    rng = np.random.default_rng(seed)
    shocks = rng.standard_normal(n)
    at = int(rng.integers(60, 140))
    return sh.one_step(shocks, phi, size, cov, at, {"phi": phi, "cov": cov})


def test_a_clear_step_is_found_and_placed_and_a_faint_one_is_not_found():
    assert all(sh.oracle_placed(_step(s, 0.0, -0.3), 0) == (True, True) for s in range(5))
    assert not any(sh.oracle_placed(_step(s, 0.0, -0.005), 0)[0] for s in range(5))
    ramp = _step(0, 0.0, -0.3)
    ramp.ramps[0] = 10
    assert sh.oracle_placed(ramp, 0) is None


def test_the_placement_weighs_the_correlation_it_knows():
    """At phi 0.8 a step is one innovation as large as itself at its first run: the likelihood that knows phi
    places -10% steps at COV 5% within 3 runs far more often than least squares (what a phi of 0 would do)."""
    known = blind = 0
    for seed in range(60):
        h = _step(seed, 0.8, -0.10)
        known += sh.oracle_placed(h, 0)[1]
        h.knobs["phi"] = 0.0
        blind += sh.oracle_placed(h, 0)[1]
    assert known >= blind + 10, (known, blind)
