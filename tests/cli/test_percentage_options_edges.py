"""The percentage options of `history`, `export` and `compare` (--cov-target, --noise-floor) at each edge of
what they take, both ways (issue 41: held by a few end-to-end refusals, far from their bounds)."""

from __future__ import annotations

import pytest

from iolab.analysis.compare import CompareParams
from iolab.cli.history import _compare_params, _fraction
from iolab.errors import UserError


@pytest.mark.parametrize(
    ("text", "value"),
    [("8%", 0.08), (" 8 % ", 0.08), ("0.08", 0.08), ("999.9%", 9.999), ("9.99", 9.99), ("1e-9", 1e-9)],
)
def test_a_percentage_is_read_as_a_percent_or_a_fraction(text, value):
    assert _fraction(text, "--cov-target") == pytest.approx(value)


@pytest.mark.parametrize("text", ["0", "0%", "-1%", "1000%", "10", "10.0"])
def test_nothing_negative_or_ten_times_over_is_a_percentage(text):
    with pytest.raises(UserError, match=r"^--cov-target .* is out of range: give a positive percentage such as 8%$"):
        _fraction(text, "--cov-target")


@pytest.mark.parametrize("text", ["eight", "%", "8%%", "", "nan%"])
def test_what_is_no_number_is_refused_with_an_example(text):
    with pytest.raises(UserError, match="is not a percentage: write it like 8% or 0.08"):
        _fraction(text, "--cov-target")


def test_the_noise_floor_takes_zero_and_stays_below_the_equivalence_margin():
    margin = CompareParams().equivalence_margin
    assert _compare_params(None) == CompareParams()
    assert _compare_params("0").noise_floor == 0.0 and _compare_params("0%").noise_floor == 0.0
    below = f"{margin * 100 - 0.1:.1f}%"
    assert _compare_params(below).noise_floor == pytest.approx(margin - 0.001)
    with pytest.raises(UserError, match=f"must be below the {margin:.0%} equivalence margin"):
        _compare_params(f"{margin * 100:g}%")
    with pytest.raises(UserError, match="out of range"):
        _compare_params("-1%")
