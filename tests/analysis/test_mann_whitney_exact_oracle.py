"""compare's Mann-Whitney U against its definition counted by brute force: U of B is the number of pairs
(a, b) with b above a, a tie counting one half; its exact two-sided p is twice the smaller tail of U over
every way of dealing the pooled values to the two sides (capped at 1: U at the null's centre), and min_p that
of the most extreme arrangement. Generated small samples with and without ties, and the size limits of the
exact methods from both sides. Issue 41: an exact p above 0.5 per tail lived (no test read such a p)."""

from __future__ import annotations

import itertools
import random

import pytest

from iolab.analysis.compare import mann_whitney


def _u(a: list[float], b: list[float]) -> float:
    return sum(1.0 if y > x else 0.5 if y == x else 0.0 for x in a for y in b)


def oracle(a: list[float], b: list[float]) -> tuple[float, float, float]:
    pooled, m = a + b, len(b)
    null = []
    for chosen in itertools.combinations(range(len(pooled)), m):
        picked = set(chosen)
        null.append(_u([v for i, v in enumerate(pooled) if i not in picked], [pooled[i] for i in chosen]))
    u = _u(a, b)
    p = min(1.0, 2 * min(sum(x <= u for x in null), sum(x >= u for x in null)) / len(null))
    low, high = min(null), max(null)
    extreme = min(1.0, 2 * min(sum(x <= low for x in null), sum(x >= high for x in null)) / len(null))
    return u, p, extreme


def test_the_exact_u_test_is_its_definition_counted_over_every_arrangement():
    rng = random.Random(41)
    seen_capped = seen_ties = 0
    for _ in range(120):
        n, m = rng.randint(1, 5), rng.randint(1, 5)
        pool = rng.choice([[1.0, 2.0, 3.0], [float(v) for v in range(40)]])  # few values: ties
        a, b = [rng.choice(pool) for _ in range(n)], [rng.choice(pool) for _ in range(m)]
        result = mann_whitney(a, b)
        u, p, extreme = oracle(a, b)
        assert (result.u, result.method) == (u, "exact")
        assert result.p == pytest.approx(p, abs=1e-12) and result.min_p == pytest.approx(extreme, abs=1e-12)
        seen_capped += p == 1.0
        seen_ties += len(set(a + b)) < len(a + b)
    assert seen_capped > 5 and seen_ties > 20


def test_a_u_at_the_null_s_centre_has_p_one_with_and_without_ties():
    assert mann_whitney([1.0, 4.0], [2.0, 3.0]).p == 1.0
    assert mann_whitney([1.0, 2.0, 2.0], [2.0, 2.0, 1.0]).p == 1.0


@pytest.mark.parametrize(
    ("n_a", "n_b", "ties", "method"),
    [
        (100, 25, False, "exact"),  # 2,500 pairs and 25 on the smaller side: the closed form's limits
        (101, 25, False, "normal"),  # one pair too many
        (26, 26, False, "normal"),  # 26 on each side: beyond 25
        (8, 8, True, "exact"),  # 12,870 arrangements: enumerated
        (9, 8, True, "normal"),  # 24,310
    ],
)
def test_each_exact_method_holds_up_to_its_limit_and_not_beyond(n_a, n_b, ties, method):
    a = [float(i % 3 if ties else 2 * i) for i in range(n_a)]
    b = [float(i % 4 if ties else 2 * i + 1) for i in range(n_b)]
    assert mann_whitney(a, b).method == method
