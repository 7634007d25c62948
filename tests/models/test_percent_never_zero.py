"""A non-zero percentage is never shown as "0.0%" (units.percent): a chance of 0.04% read "0.0%" in
TEL-RECURRING's evidence, smaller than the "under 0.01%" it says of smaller chances."""

from __future__ import annotations

import math
import random

import pytest

from iolab.doctor.rules.recurring import _chance
from iolab.models import units


def _shown(text: str) -> float:
    return float(text.removesuffix("%"))


def test_a_non_zero_percentage_keeps_its_sign_and_size() -> None:
    rng = random.Random(7)
    for _ in range(2_000):
        value = math.copysign(10 ** rng.uniform(-6, 1), rng.choice([-1, 1]))
        shown = _shown(units.percent(value))
        assert shown != 0 and math.copysign(1, shown) == math.copysign(1, value), (value, units.percent(value))
        if abs(value) < 0.05:  # two significant digits where one decimal would say nothing
            assert abs(shown - value) <= 0.05 * abs(value), (value, units.percent(value))


@pytest.mark.parametrize(("value", "text"), [(0.0, "0.0%"), (4.2, "4.2%"), (42.0, "42%"), (0.042, "0.042%")])
def test_usual_values_read_as_before(value: float, text: str) -> None:
    assert units.percent(value) == text


def test_a_recurring_drop_s_chance_reads_in_order() -> None:
    chances = [5e-5, 1e-4, 2e-4, 4.9e-4, 1e-3, 0.02]
    shown = [_chance(c) for c in chances]
    assert shown[0] == "under 0.01%"
    assert [_shown(s) for s in shown[1:]] == sorted(_shown(s) for s in shown[1:])
    assert all(_shown(s) > 0 for s in shown[1:]), shown


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 5e-324, 1e-300, -1e-12, 1e300])
def test_any_float_is_shown_briefly_and_without_error(value: float) -> None:
    """Two significant digits by decimals were 300 characters for 1e-300, and a NaN duration raised (the
    log of a NaN has no floor): every float is shown, in at most a dozen characters below 10."""
    for shown in (units.percent(value), units.duration(value)):
        assert shown and (abs(value) >= 10 or len(shown) <= 12), shown
    if math.isfinite(value) and value != 0 and abs(value) < 10:
        assert float(units.duration(abs(value)).removesuffix(" s")) == pytest.approx(abs(value), rel=0.05)
