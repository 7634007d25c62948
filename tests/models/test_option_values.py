"""Reading one fio option value the way fio does: sizes, times and numbers (a whole job: test_job_options)."""

from __future__ import annotations

import pytest

from iolab.models.option_values import option_number, parse_seconds, parse_size, to_fio_string


@pytest.mark.parametrize(
    ("text", "expected"), [("4k", 4096), ("1MiB", 2**20), ("512", 512), ("2g", 2 * 2**30), ("10%", None)]
)
def test_sizes_are_base_1024_as_fio_reads_them(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize(("text", "expected"), [("30", 30.0), ("2m", 120.0), ("500ms", 0.5), ("1h", 3600.0)])
def test_a_bare_time_is_seconds(text, expected):
    assert parse_seconds(text) == pytest.approx(expected)


def test_an_options_number_is_seconds_for_a_time_option_and_a_size_otherwise():
    assert option_number("runtime", "2m") == 120.0 and option_number("timeout", "2m") == 120.0  # an alias
    assert option_number("size", "2m") == 2 * 2**20 and option_number("bs", "4k") == 4096
    assert option_number("iodepth", "deep") is None


def test_toml_scalars_become_fio_strings():
    assert [to_fio_string(v) for v in (True, False, 32, 2.0, 0.5, "4k")] == ["1", "0", "32", "2", "0.5", "4k"]
