"""The hidden-dip rule's shortest visible length (doctor.rules.telemetry.power, its inner bisection): the shortest
length at which a dip `PARAMS.drop` deep would show is the first whose smallest visible drop is at most that deep,
so a length whose smallest visible drop is exactly `PARAMS.drop` is that length, not the next. The edge is
reached with the shortest length judged (`PARAMS.min_duration_s`) set to a length the bisection comes down to,
and `PARAMS.drop` set to the smallest drop visible at it (`Power.shallowest`, the same computation): the
bisection's last comparison is then an exact tie."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from iolab.doctor.rules import telemetry


@pytest.mark.parametrize("length", [3, 5, 8])
def test_a_length_whose_smallest_visible_drop_is_exactly_the_drop_is_the_shortest(monkeypatch, length) -> None:
    values = list(500.0 * np.exp(np.random.default_rng(7).normal(0.0, 0.05, 60)))
    times = [float(t) for t in range(1, 61)]

    def power(**params: float) -> telemetry.Power:
        monkeypatch.setattr(telemetry, "PARAMS", dataclasses.replace(telemetry.PARAMS, **params))
        seen = telemetry.power(values, [], times, 1)
        assert seen is not None
        return seen

    edge = power(min_duration_s=length).shallowest  # the smallest drop visible at `length` seconds
    assert power(min_duration_s=length, drop=edge).shortest == length
    assert power(min_duration_s=length, drop=math.nextafter(edge, 1.0)).shortest == length
    assert power(min_duration_s=length, drop=math.nextafter(edge, 0.0)).shortest == length + 1  # a hair deeper
