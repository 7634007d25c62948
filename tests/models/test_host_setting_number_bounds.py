"""The greatest value a plan may give each numeric host setting, written out (the kernel's own ranges are wider
or unbounded; past these a number is a typo): read_ahead_kb up to 2**30 KiB (1 TiB), wbt_lat_usec up to
2**40 us, nr_requests 1 to 2**20. The fast tests took each bound from the table itself, so a moved bound
moved the test too (fresh seed 84263 found read_ahead_kb's `1 << 30` turned `2 << 30` survived; seed 53007
wbt_lat_usec's)."""

from __future__ import annotations

import pytest

from iolab.models.host_settings import host_setting


@pytest.mark.parametrize(
    ("name", "low", "high"),
    [("read_ahead_kb", 0, 1_073_741_824), ("wbt_lat_usec", 0, 1_099_511_627_776), ("nr_requests", 1, 1_048_576)],
)
def test_each_numeric_settings_bounds_are_taken_and_one_past_them_refused(name, low, high):
    setting = host_setting(name)
    assert setting.value(low) == str(low) and setting.value(str(high)) == str(high)
    for past in (low - 1, high + 1):
        with pytest.raises(ValueError, match=f"expected a whole number from {low} to {high}"):
            setting.value(past)
