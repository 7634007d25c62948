"""Series without what most tests give them (issue 41: `bench/mutation.py --whole` left these held by no fast
test): a history of runs without timestamps, whose cycles cannot be sampled at all, and a point whose
per-second rate is exactly constant, which has no warm-up to cut."""

from __future__ import annotations

from iolab.analysis.history import analyse_history
from iolab.analysis.stopping import mser_cut


def test_a_history_without_times_says_both_cycles_were_not_sampled_over_no_span():
    values = [100.0 + (i % 5) for i in range(40)]
    noise = analyse_history(values).noise
    assert noise is not None
    shown = [(c.name, c.state, c.span_cycles, c.amplitude) for c in (noise.daily, noise.weekly)]
    assert shown == [("daily", "not sampled", 0.0, 0.0), ("weekly", "not sampled", 0.0, 0.0)]


def test_a_constant_rate_has_no_warm_up_to_cut():
    assert mser_cut([250.0] * 60) == 0
    assert mser_cut([250.0] * 60, batch=1) == 0
