"""SNIA PTS steady state at its edges (plan.steady): a window whose range or slope excursion is exactly its
limit is steady (the definition's "within"), rates below one I/O a second are judged like any other, a
window of zeros is steady and zeros beside a value are not, and the round cap is reached at exactly
`max_rounds` rounds. Every tie below is exact in binary floating point (4 / 10 is the double nearest 0.4
either way)."""

from __future__ import annotations

import math

import pytest

from iolab.plan.steady import SteadyVerdict, steady_state

LINE = [8.0, 9.0, 10.0, 11.0, 12.0]  # mean 10, range 4, least-squares slope 1: excursion 4 over the window


@pytest.mark.parametrize(
    ("range_frac", "slope_frac", "status"),
    [
        (0.4, 0.4, "steady"),
        (0.4, 0.5, "steady"),
        (0.5, 0.4, "steady"),
        (0.39, 0.5, "continue"),
        (0.5, 0.39, "continue"),
    ],
)
def test_a_window_exactly_at_either_limit_is_steady_and_just_past_it_is_not(range_frac, slope_frac, status):
    verdict = steady_state(LINE, range_frac=range_frac, slope_frac=slope_frac)
    assert verdict == SteadyVerdict(status, (0, 4), 10.0, 0.4, 0.4)


def test_rates_below_one_a_second_are_judged_by_their_range_and_slope():
    slow = [0.5, 0.55, 0.5, 0.5, 0.5]
    verdict = steady_state(slow)
    assert verdict.status == "steady" and verdict.mean == pytest.approx(0.51)
    assert verdict.range_frac == pytest.approx(0.05 / 0.51)
    assert steady_state([0.5, 0.9, 0.5, 0.5, 0.5]).status == "continue"


def test_a_window_of_zeros_is_steady_and_zeros_beside_a_value_are_not():
    assert steady_state([0.0] * 5) == SteadyVerdict("steady", (0, 4), 0.0, 0.0, 0.0)
    negative = steady_state([1.0, -1.0, 1.0, -1.0, 0.0])  # a mean of 0 with a spread: never steady
    assert negative.status == "continue" and math.isinf(negative.range_frac) and math.isinf(negative.excursion_frac)


@pytest.mark.parametrize(("rounds", "status"), [(24, "continue"), (25, "not_reached"), (26, "not_reached")])
def test_the_round_cap_is_reached_at_exactly_max_rounds(rounds, status):
    values = [10.0 if i % 2 else 20.0 for i in range(rounds)]  # never steady
    verdict = steady_state(values)
    assert verdict.status == status and verdict.window == (rounds - 5, rounds - 1)


def test_fewer_rounds_than_the_window_continue_unless_the_cap_is_smaller_than_the_window():
    assert steady_state([1.0] * 4) == SteadyVerdict("continue", None)
    assert steady_state([1.0] * 4, window=6, max_rounds=4) == SteadyVerdict("not_reached", None)
    assert steady_state([1.0] * 3, window=6, max_rounds=4) == SteadyVerdict("continue", None)
    assert steady_state([1.0] * 6, window=6).window == (0, 5)


def test_each_verdict_says_its_rounds_one_based_and_its_figures():
    assert steady_state(LINE, range_frac=0.4, slope_frac=0.4).reason == (
        "steady in rounds 1-5 (range 40.0%, slope excursion 40.0% of mean 10)"
    )
    assert (
        steady_state([0.0, *LINE]).reason
        == "not steady yet in rounds 2-6 (range 40.0%, slope excursion 40.0% of mean 10)"
    )
    capped = steady_state([1.0, *LINE], max_rounds=6)
    assert (
        capped.reason
        == "steady state not reached by round 6 (last window: range 40.0%, slope excursion 40.0% of mean 10)"
    )
    assert steady_state([]).reason == "not enough rounds for a measurement window yet"


def test_the_default_limits_are_pts_20_percent_range_and_10_percent_excursion_over_5_rounds():
    drifting = [9.4, 9.7, 10.0, 10.3, 10.6]  # range 12%, excursion 12%: the slope fails
    assert steady_state(drifting).status == "continue"
    assert steady_state(drifting, slope_frac=0.13).status == "steady"
    noisy = [9.0, 11.1, 10.0, 9.0, 11.1]  # range 21%, flat enough: the range fails
    assert steady_state(noisy).status == "continue"
    assert steady_state(noisy, range_frac=0.22).status == "steady"
