"""A side figure in µs is written with three significant digits at most: its bounds at 10 and 100 µs.

Why: the fast tables' CPU µs/IO fall between the bounds, so a figure of exactly 10 or 100 µs, written with a
digit more or less by a slip in the bound, was read by no test."""

from __future__ import annotations

import pytest

from iolab.views.side_columns import micros


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0.0, "0.00"), (9.994, "9.99"), (10.0, "10.0"), (99.94, "99.9"), (100.0, "100"), (1234.5, "1,234")],
)
def test_micros_keeps_three_significant_digits_at_most(value, shown):
    assert micros(value) == shown
