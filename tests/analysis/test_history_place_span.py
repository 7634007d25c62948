"""What a change point's place likelihood says of how well its place is known (`ChangePoint.place_mass`, `span`;
issue 40, twenty-second look, which bench/history_unplaced.py measures them for)."""

from __future__ import annotations

import numpy as np
import pytest

from iolab.analysis import history
from iolab.analysis.history import PLACE_CREDIBLE, PLACE_RUNS, analyse_history


def _series(seed: int) -> tuple[list[float], int]:
    """60-119 runs of AR(1) noise (phi 0.4, COV 8%) with a -12% step at least 25 runs from either end: a step of
    1.5 sds, whose place the runs often cannot tell to within a few runs."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 120))
    at = int(rng.integers(25, n - 25))
    e, w = np.zeros(n), rng.standard_normal(n) * np.sqrt(1 - 0.4**2)
    for i in range(n):
        e[i] = 0.4 * e[i - 1] + w[i] if i else w[i]
    x = 1.0 + 0.08 * e
    x[at:] -= 0.12
    return list(x), at


@pytest.mark.parametrize("seed", [76, 215, 244, 275])
def test_a_change_point_placed_beside_its_step_says_its_place_is_not_known_and_its_span_holds_the_step(seed):
    """Found by search over 300 such series: the change point lies 5-11 runs from the step, under half of its
    likelihood within PLACE_RUNS runs of it, and the shortest span holding PLACE_CREDIBLE of it holds the step."""
    values, at = _series(seed)
    (cp,) = analyse_history(values).change_points
    assert abs(cp.index - at) > PLACE_RUNS and cp.place_mass < 0.5
    assert cp.span is not None and cp.span[0] <= at <= cp.span[1], (cp.span, at)


def test_a_span_is_the_shortest_that_holds_its_share_of_the_likelihood():
    """Weights of 0.02 / 0.5 / 0.05 / 0.3 / 0.13 over five places (the first four hold 0.87, the last four 0.98):
    the shortest span holding PLACE_CREDIBLE (0.9) runs from the second place to the last."""
    weights = np.array([0.02, 0.5, 0.05, 0.3, 0.13])
    total = np.concatenate([[0.0], np.cumsum(weights)])
    assert PLACE_CREDIBLE == 0.9 and history._credible(total) == (1, 4)
    assert history._credible(np.array([0.0, 0.0, 1.0, 1.0])) == (1, 1)  # one place holds all of it


def test_a_clear_step_is_sure_of_its_place_and_its_span_is_its_neighbourhood():
    """4-sd steps: nearly all of the likelihood within PLACE_RUNS runs, so the shortest span holding 90% of it is
    no wider than that neighbourhood, and it holds the place reported."""
    for seed in range(20):
        values, at = _series(seed)
        values = [v - 0.2 * (i >= at) for i, v in enumerate(values)]  # -32%: 4 sds
        (cp,) = analyse_history(values).change_points
        assert cp.place_mass >= 0.9 and cp.span is not None
        assert cp.span[0] <= cp.index <= cp.span[1] and cp.span[1] - cp.span[0] <= 2 * PLACE_RUNS, (cp, at)
