"""numbers.fraction: a share is above 0 and below 1, both ends refused in one line naming the setting (a
share of exactly 0 or 100% means nothing to aim at); just inside either end is kept as written."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.numbers import fraction


@pytest.mark.parametrize("text", ["0", "0%", "0.0", "1", "100%", "-0.01", "101%"])
def test_a_share_at_or_beyond_either_end_is_refused_naming_the_setting(text):
    with pytest.raises(UserError) as refused:
        fraction(text, "target_ci")
    assert str(refused.value) == f"target_ci: {text!r} must be above 0% and below 100%"


@pytest.mark.parametrize(("text", "share"), [("1e-9", 1e-9), ("0.999999", 0.999999), ("99.9%", 0.999)])
def test_a_share_just_inside_either_end_is_kept(text, share):
    assert fraction(text, "target_ci") == pytest.approx(share)
