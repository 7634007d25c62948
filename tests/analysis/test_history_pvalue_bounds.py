"""`max_pvalue` at the API boundary, and the critical value every first pass reads (issue 40, twentieth look).

`change_points` took any `max_pvalue`: at 0 or below, or at 1 or more, a bare `statistics.StatisticsError` came from
a normal quantile deep in the split pass. And the binary pass read its critical value as the (1 - relaxed/2)
quantile, where the window screen reads it from the lower tail (`history._critical`): at small p the two differ by
more than a rounding, so a split at the same z could pass one pass and not the other."""

from __future__ import annotations

import math

import numpy as np
import pytest

import iolab.analysis.history as module
from iolab.analysis.history import ChangePointParams, analyse_history, change_points


@pytest.mark.parametrize("p", [0.0, -1e-4, 1.0, 1.5, 2.0, math.nan, -math.inf, math.inf])
def test_a_max_pvalue_outside_zero_to_one_is_refused_in_words(p):
    x = 100.0 + np.random.default_rng(1).standard_normal(60)
    for call in (change_points, analyse_history):
        with pytest.raises(ValueError, match="max_pvalue"):
            call(x, ChangePointParams(max_pvalue=p))


@pytest.mark.parametrize("p", [1e-12, 1e-4, 0.04, 0.5, 0.999])
def test_a_max_pvalue_inside_zero_to_one_is_taken(p):
    x = 100.0 + np.random.default_rng(2).standard_normal(60)
    x[30:] *= 0.7
    analysis = analyse_history(x, ChangePointParams(max_pvalue=p))
    assert analysis.detectable_step(30, 30) is not None


def test_the_binary_pass_keeps_a_split_exactly_when_its_p_is_under_the_relaxed_threshold():
    """A two-level segment whose binary-pass z sits a hair (1e-9 relatively) either side of the critical value of
    each relaxed threshold from 1e-2 down to 1e-14: the split is proposed exactly when the two-sided normal p of
    that z (erfc, as `_segment_test` computes it) is under the threshold. With the critical value read as the
    (1 - relaxed/2) quantile, the splits at the smallest thresholds are decided against their p."""
    x = np.r_[np.zeros(10), np.ones(10)]
    stat = math.sqrt(float(module.split_gains(x, np.array([10]))[0]))
    wrong = []
    for max_pvalue in (1e-3, 1e-5, 1e-8, 1e-10, 1e-12, 1e-13, 1e-14, 1e-15):
        relaxed = 10.0 * max_pvalue
        for side in (1.0 - 1e-9, 1.0 + 1e-9):
            z = module._critical(relaxed) * side
            p = math.erfc(z / math.sqrt(2.0))
            noise = module._Noise(stat / z, 1.0)
            proposed = module._binary_candidates(x, ChangePointParams(20, max_pvalue=max_pvalue), noise) == [10]
            if proposed != (p < relaxed):
                wrong.append((max_pvalue, side, p))
    assert not wrong, wrong


def test_the_critical_value_is_the_one_the_tests_p_is_exact_at():
    """`_critical(p)` is the |z| whose two-sided erfc p is p, to a relative 1e-12, from 0.5 down to 1e-15."""
    for p in (0.5, 1e-2, 1e-4, 1e-7, 1e-10, 1e-13, 1e-15):
        assert math.erfc(module._critical(p) / math.sqrt(2.0)) == pytest.approx(p, rel=1e-12)
