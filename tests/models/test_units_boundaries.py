"""`models.units`, the formatting of every figure a page shows, at each boundary where a formatter changes its
unit or its digits (issue 41 item 8): the value at a boundary takes the larger unit or the fewer decimals,
the value just below takes the smaller, and a value printed and read back is the value within its digits.
One table of boundaries holds every formatter, so a slip in any comparison or scale moves a row."""

from __future__ import annotations

import math

import pytest

from iolab.models import units

BELOW = 1 - 1e-9
# (formatter, value at the boundary, its text, the text just below it)
BOUNDARIES = [
    (units.mb_per_s, 100e6, "100", "100.0"),
    (units.mb_per_s, 1e6, "1.0", "1.00"),
    (units.iops, 1e6, "1.00M", "1000.0k"),
    (units.iops, 1e4, "10.0k", "10,000"),
    (units.latency, 1e9, "1.00 s", "1000 ms"),
    (units.latency, 1e6, "1.00 ms", "1000 µs"),
    (units.latency, 1e3, "1.00 µs", "1000 ns"),
    (units.latency, 100e3, "100 µs", "100.0 µs"),
    (units.latency, 10e3, "10.0 µs", "10.00 µs"),
    (units.size, 2**40, "1.0 TiB", "1024.0 GiB"),
    (units.size, 2**30, "1.0 GiB", "1024.0 MiB"),
    (units.size, 2**20, "1.0 MiB", "1024.0 KiB"),
    (units.size, 2**10, "1.0 KiB", "1024 B"),
    (units.percent, 10, "10%", "10.0%"),
    (units.duration, 3600, "1 h", "60 min"),
    (units.duration, 120, "2 min", "120 s"),
    (units.elapsed_ms, 1000, "1.00 s", "1000 ms"),
    (units.elapsed_ms, 10_000, "10.0 s", "10.00 s"),
    (units.elapsed_ms, 120_000, "2 min", "120.0 s"),
]


@pytest.mark.parametrize(("fmt", "at", "text", "below"), BOUNDARIES, ids=lambda v: getattr(v, "__name__", None))
def test_each_formatter_takes_its_larger_unit_at_the_boundary_and_not_below(fmt, at, text, below):
    assert fmt(at) == text
    assert fmt(at * BELOW) == below


def test_durations_of_hours_keep_a_decimal_only_where_it_says_something():
    assert units.duration(5400) == "1.5 h" and units.duration(7200) == "2 h" and units.duration(59) == "59 s"


@pytest.mark.parametrize("ns", [1, 999, 1e3, 4.56e4, 7.89e5, 1.234e6, 9.99e7, 2.5e9, 1.5e11])
def test_a_latency_printed_reads_back_as_itself_to_its_digits(ns):
    value, unit = units.latency(ns).split()
    back = float(value) * units.SCALED_UNITS["latency"][unit]
    assert back == pytest.approx(ns, rel=0.01)
    assert 1 <= float(value) < 1000 or unit == "s" or (unit == "ns" and ns < 1000)


def test_a_stddev_is_written_in_its_mean_s_unit():
    assert units.spread(600e6, 0.0, units.latency) == "600 ms ± 0 ms"
    assert units.spread(2500.0, 1500.0, units.elapsed_ms) == "2.50 s ± 1.50 s"
    assert units.spread(50e6, 2e6, units.mb_per_s) == "50.0 ± 2.0"  # no unit in the text: the stddev as the mean


@pytest.mark.parametrize(
    ("value", "text"),
    [(0, "0"), (1.0, "1"), (3, "3"), (1.894, "1.89"), (0.4481, "0.448"), (12.34, "12.3"), (99.94, "99.9"),
     (100.4, "100"), (1234.5, "1,234"), (-0.05, "-0.0500")],
)  # fmt: skip
def test_significant_gives_three_digits_and_whole_numbers_as_they_are(value, text):
    assert units.significant(value) == text


def test_counted_metric_values_p_values_and_times():
    assert units.counted(1, "device") == "1 device" and units.counted(2, "device") == "2 devices"
    assert units.counted(0, "directory", "directories") == "0 directories"
    assert units.metric_value("bw", 250e6) == "250 MB/s" and units.metric_value("iops", 12_345) == "12.3k IOPS"
    assert units.metric_value("lat_mean", 81_000) == "81.0 µs" and units.metric_value("bw", None) == "-"
    assert [units.p_value(p) for p in (None, 0.0009, 0.001, 0.05, 0.9999, 1.0)] == [
        "n/a", "<0.001", "0.001", "0.05", "1", "1",
    ]  # fmt: skip
    assert units.iso_utc(0) == "1970-01-01T00:00:00+00:00" and units.iso_utc(None) == ""
    assert units.latency(None) == "-" and math.isclose(units.MB, 1e6)
