"""Reading fio option values the way fio does: one place for sizes, times, flags and fio's defaults."""

from __future__ import annotations

import pytest

from iolab.models.option_values import (
    FIO_DEFAULTS,
    is_flag_on,
    job_seconds,
    option_seconds,
    option_size,
    parse_seconds,
    parse_size,
)


@pytest.mark.parametrize(
    ("text", "expected"), [("4k", 4096), ("1MiB", 2**20), ("512", 512), ("2g", 2 * 2**30), ("10%", None)]
)
def test_sizes_are_base_1024_as_fio_reads_them(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize(("text", "expected"), [("30", 30.0), ("2m", 120.0), ("500ms", 0.5), ("1h", 3600.0)])
def test_a_bare_time_is_seconds(text, expected):
    assert parse_seconds(text) == pytest.approx(expected)


def test_fio_s_defaults_fill_what_a_job_leaves_out():
    assert option_size({}, "iodepth") == 1 and option_size({}, "numjobs") == 1 and option_size({}, "bs") == 4096
    assert option_size({"iodepth": "32"}, "iodepth") == 32
    assert option_seconds({}, "ramp_time") == 0.0 and option_seconds({}, "runtime") is None
    assert option_size({"size": "10%"}, "size") is None  # a share of the device is not a size
    assert set(FIO_DEFAULTS) >= {"iodepth", "numjobs", "bs", "ramp_time"}


def test_flags_and_the_seconds_a_job_takes():
    assert is_flag_on({"time_based": ""}, "time_based") and not is_flag_on({"direct": "0"}, "direct")
    assert not is_flag_on({}, "direct")
    assert job_seconds({"time_based": "1", "runtime": "8s", "ramp_time": "2"}) == 10.0
    assert job_seconds({"size": "1g"}) == 0.0  # bounded by size alone: the device decides
