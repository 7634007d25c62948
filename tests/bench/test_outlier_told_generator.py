"""bench/outlier_told_generator.py's reference test (GT, issue 40 eleventh round): told the generator's slow-drive
model but not which drives are slow, it weighs a far drive against peers that may hold a second, milder slow one,
summing over the configurations of two slow drives; that sum is what removes the masking."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import outlier_told_generator as gt

BENCH = Path(gt.__file__).parent

# the cut GT's held-out figures were judged at (its calibration on 10,000 clean arrays)
CUT = next(iter(json.loads((BENCH / "results" / "outlier_told_generator.json").read_text())["bins"].values()))[
    "calibration"
]["cut"]


def _masked(spread: float = 0.12, drives: int = 11, mild: float = 0.54, far: float = 0.38) -> np.ndarray:
    """ln means of the audit's array (docs/accuracy.md, `array_case(83)`): `drives` - 2 healthy drives spread
    `spread` exactly (normal scores), one at `mild` and one at `far` of their centre."""
    q = np.array([NormalDist().inv_cdf((i + 0.5) / (drives - 2)) for i in range(drives - 2)])
    return np.concatenate([q / q.std(ddof=1) * spread, [math.log(mild), math.log(far)]])


def test_two_drives_that_mask_each_other_are_both_named_with_two_slow_drives_in_the_model():
    """The shipped leave-out steps name neither (tests/analysis/test_outlier_masking.py). GT names both at its cut;
    with the two-slow configurations switched off (`most` 1) the milder drive must be healthy, widens the spread
    the far one is weighed against, and neither is named."""
    y = _masked()
    assert set(np.flatnonzero(gt.log_odds(y) > CUT)) == {9, 10}
    assert not np.any(gt.log_odds(y, most=1) > CUT)


def test_a_clean_array_names_nothing_and_weighs_no_drive_well_above_the_median():
    y = _masked(mild=1.0, far=1.0)
    odds = gt.log_odds(y)
    assert not np.any(odds > CUT)
    assert np.all(np.isneginf(odds[y > np.median(y) + 0.1]))
