"""analysis.medians gives np.median's value to the bit (the history's side medians and the group search took
np.median and must keep every figure they gave): on generated values with ties, signed zeros, infinities and
NaN, odd and even counts."""

from __future__ import annotations

import numpy as np

from iolab.analysis.medians import median_of, row_medians


def _generated(rng: np.random.Generator, size: tuple[int, ...]) -> np.ndarray:
    values = np.round(rng.standard_normal(size), int(rng.integers(0, 3)))  # ties, and -0.0 from rounding
    flat = values.reshape(-1)
    for special in (np.nan, np.inf, -np.inf, 0.0, -0.0):
        if flat.size and rng.random() < 0.2:
            flat[rng.integers(0, flat.size)] = special
    return values


def test_median_of_is_np_median_to_the_bit():
    rng = np.random.default_rng(52)
    for _ in range(3000):
        values = _generated(rng, (int(rng.integers(1, 12)),))
        with np.errstate(invalid="ignore"):
            expected = np.float64(np.median(values))
        assert np.float64(median_of(values.tolist())).tobytes() == expected.tobytes(), values


def test_row_medians_are_np_median_of_each_row_to_the_bit():
    rng = np.random.default_rng(53)
    for _ in range(400):
        rows = _generated(rng, (int(rng.integers(1, 20)), int(rng.integers(1, 9))))
        with np.errstate(invalid="ignore"):
            expected = np.median(rows, axis=1)
        assert row_medians(rows).tobytes() == expected.tobytes(), rows
