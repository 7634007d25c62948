"""The group search's running sums (`outlier_groups._rest_sums`) are np.cumsum's along each row to the bit: the
simulated nulls, and so every cut and alarm, must not move when the sums are taken a column at a time."""

from __future__ import annotations

import numpy as np

from iolab.analysis import outlier_groups


def _cumsum_sums(a: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sums as the group search took them before: a running sum along each row from its best value."""
    s1 = np.cumsum(a[:, ::-1], axis=1)[:, ::-1]
    s2 = np.cumsum((a**2)[:, ::-1], axis=1)[:, ::-1]
    k = a.shape[1] - m
    return s1[:, k], s2[:, k]


def test_the_rest_sums_are_a_running_sum_along_each_row_to_the_bit():
    rng = np.random.default_rng(52)
    for _ in range(300):
        rows, n = int(rng.integers(1, 40)), int(rng.integers(2, 70))
        a = np.round(rng.standard_normal((rows, n)) * 10.0 ** rng.integers(-3, 4), int(rng.integers(0, 8)))
        a = np.sort(a, axis=1)[:, ::-1]  # worst first, ties and signed zeros among them
        m = np.unique(rng.integers(1, n + 1, int(rng.integers(1, n + 1))))
        for got, expected in zip(outlier_groups._rest_sums(a, m), _cumsum_sums(a, m), strict=True):
            assert got.tobytes() == np.ascontiguousarray(expected).tobytes()
