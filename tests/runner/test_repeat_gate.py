"""The adaptive-repeat gate."""

from __future__ import annotations

from iolab.models.plan import RepeatPolicy
from iolab.runner.repeat_gate import needs_more_runs


def test_adaptive_repeats_stop_when_cov_is_under_target_or_at_the_cap():
    policy = RepeatPolicy(count=3, adaptive=True, cov_target=0.05, max_count=5)
    assert needs_more_runs([100.0, 101.0], policy)  # below the minimum count
    assert not needs_more_runs([100.0, 101.0, 99.0], policy)  # CoV 1%
    assert needs_more_runs([100.0, 120.0, 80.0], policy)  # CoV 20%
    assert not needs_more_runs([100.0, 120.0, 80.0, 100.0, 130.0], policy)  # cap of 5 reached
    assert not needs_more_runs([100.0, 120.0, 80.0], RepeatPolicy(count=3))  # fixed policy
