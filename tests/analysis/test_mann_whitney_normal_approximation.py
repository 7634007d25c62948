"""Compare's verdict past the exact limits: Mann-Whitney's normal approximation (tie and continuity
corrected) must give about the p value the exact permutation distribution gives, where both can still be
counted (9 vs 9 with ties: 48,620 arrangements, beyond compare's own enumeration limit), and its z must be
taken over U's exact permutation variance with those ties. Issue 41: `bench/mutation.py --whole` found its
variance held by no fast test."""

from __future__ import annotations

import functools
import itertools
import math
import random
import statistics

from iolab.analysis.compare import mann_whitney


def _mid_ranks(values: list[float]) -> dict[float, float]:
    ordered = sorted(values)
    return {v: (ordered.index(v) + len(ordered) - ordered[::-1].index(v) + 1) / 2.0 for v in set(values)}


def _null_us(a: list[float], b: list[float]) -> tuple[float, list[float]]:
    """The observed U and U of every arrangement of the pooled mid-ranks (written here, not compare's)."""
    rank = _mid_ranks(a + b)
    ranks = [rank[v] for v in a + b]
    m, n = len(b), len(a)

    def u(chosen: tuple[int, ...]) -> float:
        return sum(ranks[i] for i in chosen) - m * (m + 1) / 2.0

    return u(tuple(range(n, n + m))), [u(c) for c in itertools.combinations(range(m + n), m)]


CASES = [
    ([float(rng.randint(100, 110)) for _ in range(9)], [float(rng.randint(101, 111)) for _ in range(9)])
    for rng in [random.Random(5)]
    for _ in range(4)
]


@functools.cache
def _nulls() -> list[tuple[float, list[float]]]:
    return [_null_us(a, b) for a, b in CASES]


def test_the_normal_approximation_is_within_two_points_of_the_exact_p_with_ties():
    for (a, b), (observed, us) in zip(CASES, _nulls(), strict=True):
        result = mann_whitney(a, b)
        assert result.method == "normal" and result.u == observed
        exact = sum(abs(u - 40.5) >= abs(observed - 40.5) - 1e-9 for u in us) / len(us)
        assert abs(result.p - exact) <= 0.02, (a, b, result.p, exact)


def _z(p: float) -> float:
    """z of a two-sided normal p (erfc inverted by bisection)."""
    low, high = 0.0, 40.0
    for _ in range(200):
        mid = (low + high) / 2.0
        low, high = (mid, high) if math.erfc(mid / math.sqrt(2.0)) > p else (low, mid)
    return low


def test_its_z_is_over_the_exact_permutation_variance_of_u_with_ties():
    for (a, b), (observed, us) in zip(CASES, _nulls(), strict=True):
        p = mann_whitney(a, b).p
        assert 0.0 < p < 1.0
        implied = ((abs(observed - 40.5) - 0.5) / _z(p)) ** 2
        assert math.isclose(implied, statistics.pvariance(us), rel_tol=1e-6), (a, b)
