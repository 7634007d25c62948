"""The hidden-dip rule's power (doctor.rules.telemetry.power): a series could have shown a dip `PARAMS.drop`
deep when the smallest drop it could see at some length is at most that deep: a drop exactly as deep as the
smallest visible one is visible, at the longest length judged (half the series) as at any other. The edge is
reached by making the step alarm the dip alarm, so the step's shallowest visible drop at half the series is the
very number the dip bisection compares, then setting `PARAMS.drop` to it: at it and above, a shortest length;
a hair below, none."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from iolab.doctor.rules import telemetry


def test_a_drop_exactly_as_deep_as_the_smallest_visible_one_is_visible(monkeypatch) -> None:
    rng = np.random.default_rng(41)
    values = list(500.0 * np.exp(rng.normal(0.0, 0.2, 60)))
    times = [float(t) for t in range(1, 61)]
    monkeypatch.setattr(telemetry, "STEP_ALARM", telemetry.ALARM)
    seen = telemetry.power(values, [], times, 1)
    assert seen is not None
    edge = seen.shallowest_step  # smallest(n // 2) under the dip alarm
    half = len(values) // 2

    def shortest(drop: float) -> int | None:
        monkeypatch.setattr(telemetry, "PARAMS", dataclasses.replace(telemetry.PARAMS, drop=drop))
        found = telemetry.power(values, [], times, 1)
        assert found is not None
        return found.shortest

    assert shortest(edge) == half
    assert shortest(math.nextafter(edge, 0.0)) is None
    assert shortest(math.nextafter(edge, 1.0)) == half
