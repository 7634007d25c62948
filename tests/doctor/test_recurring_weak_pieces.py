"""A pattern of many drops keeps the drops that stand out alone (`analysis.recurring.standing`, rec63).

The class: the pattern's verdict asked every one of its alike drops to stand out of the run alone, so the more drops
a run held, the likelier one weak piece (a 2 s bottom of a ramp the detector cut short) failed it; then no pattern,
the drops stayed in the run's own tail, and every dip was declined with it (the recurring scenario: a 2-hour run's
218 drops, none found). Now the drops that do not stand alone go back among the run's windows (a thicker tail for the
rest) and the others are judged again."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iolab.analysis import recurring
from iolab.doctor.derived import PointSeries
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.models import Severity

RULES = [r for r in all_rules() if r.id in ("TEL-DIP", "TEL-STEP", "TEL-RECURRING")]


def _findings(seed: int) -> tuple[int, int, int]:
    """(strong drops planted, TEL-DIP findings, TEL-RECURRING findings) on a 3,000 s run at COV 6% with t3 shocks
    (AR(1) 0.4): a 45% drop of 6 s every 40 s, every eighth a 2 s piece 30% deep instead (alike in depth and
    length within the pattern's ratios, too short to stand out of t3 noise alone)."""
    rng = np.random.default_rng([seed, 64])
    n, cov, phi = 3000, 0.06, 0.4
    shocks = rng.standard_t(3, n) / math.sqrt(3.0) * cov * math.sqrt(1 - phi * phi)
    e = np.empty(n)
    e[0] = shocks[0]
    for i in range(1, n):
        e[i] = phi * e[i - 1] + shocks[i]
    x = 1e8 * np.clip(1 + e, 0.02, None)
    strong = 0
    for k, start in enumerate(range(20, n - 20, 40)):
        if k % 8 == 7:
            x[start : start + 2] *= 0.7
        else:
            x[start : start + 6] *= 0.55
            strong += 1
    full = [x[0] * 0.4, *x.tolist(), x[-1] * 0.3]
    ctx = Context(series=[PointSeries("p", "all jobs", [float(t) for t in range(len(full))], full)])
    serious = [f for f in evaluate(ctx, RULES) if f.severity in (Severity.WARNING, Severity.CRITICAL)]
    return strong, sum(f.rule_id == "TEL-DIP" for f in serious), sum(f.rule_id == "TEL-RECURRING" for f in serious)


def test_weak_pieces_among_many_drops_do_not_cost_the_pattern(monkeypatch):
    """Seeds 1-3: the pattern is named and every strong drop found as a dip; with every drop asked to stand alone
    (STAND_SHARE 1.0, the rule before) seeds 2 and 3 lose the pattern and all but one dip."""
    for seed in (1, 2, 3):
        strong, dips, patterns = _findings(seed)
        assert patterns == 1 and dips >= strong, (seed, strong, dips, patterns)
    monkeypatch.setattr(recurring, "STAND_SHARE", 1.0)
    lost = [seed for seed in (1, 2, 3) if _findings(seed)[2] == 0]
    assert len(lost) >= 2, lost


@pytest.mark.parametrize("seed", range(3))
def test_a_clean_heavy_tailed_run_names_no_pattern(seed):
    """The guard the all-drops rule was for: clean 3,000 s runs with t3 shocks (COV 6-10%, phi 0.2-0.6) name no
    pattern (their alike shocks do not stand out alone, and at least MIN_DROPS must)."""
    rng = np.random.default_rng([seed, 65])
    n, cov, phi = 3000, float(rng.uniform(0.06, 0.10)), float(rng.uniform(0.2, 0.6))
    shocks = rng.standard_t(3, n) / math.sqrt(3.0) * cov * math.sqrt(1 - phi * phi)
    e = np.empty(n)
    e[0] = shocks[0]
    for i in range(1, n):
        e[i] = phi * e[i - 1] + shocks[i]
    x = 1e8 * np.clip(1 + e, 0.02, None)
    full = [x[0] * 0.4, *x.tolist(), x[-1] * 0.3]
    ctx = Context(series=[PointSeries("p", "all jobs", [float(t) for t in range(len(full))], full)])
    assert not [f for f in evaluate(ctx, RULES) if f.rule_id == "TEL-RECURRING" and f.severity is Severity.WARNING]
