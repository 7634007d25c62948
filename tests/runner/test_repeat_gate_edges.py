"""The adaptive-repeat gate at its edges: a CoV exactly at the target is within it, one that cannot be computed
asks for another run, and the cap holds at its exact count."""

from __future__ import annotations

from iolab.models.plan import RepeatPolicy
from iolab.runner.repeat_gate import needs_more_runs


def test_a_cov_at_the_target_is_within_it_and_one_run_cannot_say_its_cov():
    policy = RepeatPolicy(count=1, adaptive=True, cov_target=0.0, max_count=3)
    assert not needs_more_runs([100.0, 100.0], policy)  # CoV 0 at a target of 0
    assert needs_more_runs([100.0], policy)  # no CoV from one run
    assert needs_more_runs([100.0, 101.0], policy) and not needs_more_runs([100.0, 101.0, 102.0], policy)
    assert needs_more_runs([], RepeatPolicy(count=1)) and not needs_more_runs([1.0], RepeatPolicy(count=1))
