"""A point measured exactly twice takes its noise from its two repeats (the standard error of their mean,
one degree of freedom), not from a per-second series: two repeats are the fewest that measure it. No fast
scaling test had a point of exactly two repeats (fresh seed 78612 found `len(values) >= 2` turned `> 2`
survived: the point then read as unmeasured)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from iolab.doctor.rules.results import _level


def _job(bw: float) -> SimpleNamespace:
    return SimpleNamespace(name="p", result=SimpleNamespace(directions={"read": SimpleNamespace(bw_bytes=bw)}))


class Ctx:
    """A context with no per-second series: only the repeats can measure the point's noise."""

    series: list = []

    def shared(self, key, make):  # type: ignore[no-untyped-def]
        return make()


def test_two_repeats_measure_a_points_noise_and_one_does_not():
    mean, error, df = _level(Ctx(), [_job(100.0), _job(200.0)])  # type: ignore[arg-type]
    assert (mean, df) == (150.0, 1)
    assert error == pytest.approx(math.sqrt(5000.0 / 2) / 150.0)  # stddev 70.7 over sqrt(2), over the mean
    mean, error, _ = _level(Ctx(), [_job(100.0)])  # type: ignore[arg-type]
    assert (mean, error) == (100.0, None)  # once, and no seconds logged: unmeasured
