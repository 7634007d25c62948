"""A stopping target that is not a percentage is refused in one line quoting at most its first 20 characters
(runner.stopping.parse_target): a pasted paragraph is not echoed back whole."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.runner.stopping import parse_target


def test_a_long_target_that_is_no_number_is_quoted_to_its_first_20_characters():
    text = "twopercentpleaseandthenalotmore"
    with pytest.raises(UserError) as refused:
        parse_target(text)
    assert str(refused.value) == f"stopping: target {text[:20]!r} is not a percentage like 2%"


def test_a_long_target_out_of_range_is_quoted_the_same_way():
    text = "150.000000000000000000001%"
    with pytest.raises(UserError) as refused:
        parse_target(text)
    assert str(refused.value) == f"stopping: target {text[:20]!r} must be above 0% and below 100%"


@pytest.mark.parametrize(("text", "share"), [("2%", 0.02), ("0.5", 0.5), (" 99% ", 0.99)])
def test_a_share_is_read_as_a_fraction(text, share):
    assert parse_target(text) == pytest.approx(share)


@pytest.mark.parametrize("text", ["0%", "0", "100%", "1", "-2%"])
def test_the_ends_are_refused(text):
    with pytest.raises(UserError, match="above 0% and below 100%"):
        parse_target(text)
