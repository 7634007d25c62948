"""Tests that kill mutants bench/mutation.py found alive: each is a case the other tests of its module
never reached (a hinge at the last candidate, two sides without any spread)."""

from __future__ import annotations

import math

import numpy as np

from iolab.analysis.compare import pooled_t_test
from iolab.analysis.knee import _hinge_elbow


def test_a_latency_hinge_at_the_last_candidate_depth_is_found():
    """Latency flat to QD8 and rising only at QD16: the elbow is QD8, the last depth a hinge can sit at."""
    qd = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    assert _hinge_elbow(qd, np.array([100.0, 100.0, 100.0, 100.0, 900.0])) == 8.0


def test_two_sides_without_spread_differ_for_certain_or_not_at_all():
    """Every repeat identical on each side: the standard error is 0, so a difference is certain (p = 0) and
    no difference is none (p = 1), never a division by zero."""
    differ = pooled_t_test(10.0, 0.0, 3, 12.0, 0.0, 3)
    assert differ.se == 0.0 and math.isinf(differ.t) and differ.t > 0 and differ.p == 0.0
    same = pooled_t_test(10.0, 0.0, 3, 10.0, 0.0, 3)
    assert same.t == 0.0 and same.p == 1.0
