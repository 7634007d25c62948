"""SNIA PTS steady-state decision on synthetic rounds."""

from __future__ import annotations

from iolab.plan.steady import steady_state


def test_steady_rounds_report_the_window():
    rounds = [90_000, 60_000, 45_000, 41_000, 40_500, 40_000, 40_800, 39_900, 40_300]
    verdict = steady_state(rounds)
    assert verdict.status == "steady"
    assert verdict.window == (4, 8)
    assert verdict.range_frac < 0.05
    assert verdict.reason.startswith("steady in rounds 5-9")


def test_steady_state_is_judged_only_on_the_last_window():
    # The early rounds (write cliff) do not matter once the last five are flat.
    assert steady_state([100.0, 50.0, 30.0, 30.0, 30.0, 30.0]).status == "continue"
    assert steady_state([100.0, 50.0, 30.0, 30.0, 30.0, 30.0, 30.0]).status == "steady"


def test_drifting_rounds_fail_the_slope_test_though_the_range_passes():
    rounds = [100.0, 103.5, 107.0, 110.5, 114.0]  # range 14% of mean (< 20%) but line moves 13% (> 10%)
    verdict = steady_state(rounds)
    assert verdict.status == "continue"
    assert verdict.range_frac < 0.20
    assert verdict.excursion_frac > 0.10


def test_noisy_rounds_fail_the_range_test_though_the_slope_is_flat():
    rounds = [100.0, 125.0, 100.0, 125.0, 100.0]  # no trend, range 22% of mean
    verdict = steady_state(rounds)
    assert verdict.status == "continue"
    assert verdict.excursion_frac < 0.10
    assert verdict.range_frac > 0.20


def test_not_reached_by_the_round_cap():
    rounds = [100.0 + 10 * (i % 2) * i for i in range(25)]
    verdict = steady_state(rounds, max_rounds=25)
    assert verdict.status == "not_reached"
    assert verdict.reason.startswith("steady state not reached by round 25")


def test_too_few_rounds_means_continue():
    verdict = steady_state([1.0, 1.0, 1.0, 1.0])
    assert (verdict.status, verdict.window) == ("continue", None)
