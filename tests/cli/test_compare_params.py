"""`iolab compare --noise-floor`: 0 up to below the equivalence margin, written as a percentage or a fraction;
anything else a clear error before a run is read; no option, the statistics' own default."""

from __future__ import annotations

import pytest

from iolab.analysis.compare import CompareParams
from iolab.cli.history import _compare_params
from iolab.errors import UserError


@pytest.mark.parametrize(
    ("given", "floor"),
    [("0", 0.0), ("0%", 0.0), ("0.0", 0.0), ("0 %", 0.0), ("2%", 0.02), ("0.03", 0.03), ("4.9%", 0.049)],
)
def test_a_floor_from_zero_to_below_the_margin_is_taken(given, floor):
    assert _compare_params(given).noise_floor == pytest.approx(floor)


@pytest.mark.parametrize("given", ["5%", "0.05", "50%", "-1%", "nan", "inf", "", "1%\n%", "one", "1e309"])
def test_anything_else_is_a_clear_error(given):
    with pytest.raises(UserError, match="--noise-floor"):
        _compare_params(given)


def test_no_option_is_the_statistics_own_default():
    assert _compare_params(None) == CompareParams()
