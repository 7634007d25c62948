"""`mean ± stddev` is written with both in the mean's unit, and the stddev read back in that unit is the
stddev given (to its three significant digits): over latencies from nanoseconds to seconds and elapsed times
from milliseconds to seconds, whatever the sizes of the two."""

from __future__ import annotations

import random

import pytest

from iolab.models import units

# each unit's size in the formatter's input unit: the reader's table, not iolab's
SIZES = {"latency": {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9}, "elapsed_ms": {"ms": 1.0, "s": 1e3}}
DECADES = {"latency": (1, 10), "elapsed_ms": (0, 5)}


@pytest.mark.parametrize("name", list(SIZES))
def test_the_stddev_is_written_in_the_mean_s_unit_and_reads_back(name):
    fmt, rng = getattr(units, name), random.Random(f"spread:{name}")
    seen = set()
    for _ in range(200):
        mean = 10 ** rng.uniform(*DECADES[name])
        stddev = mean * 10 ** rng.uniform(-3, 0.5)
        written = units.spread(mean, stddev, fmt)
        mean_text, _, stddev_text = written.partition(" ± ")
        number, unit = stddev_text.split(" ")
        assert mean_text == fmt(mean) and unit == mean_text.rpartition(" ")[2], written
        assert float(number.replace(",", "")) * SIZES[name][unit] == pytest.approx(stddev, rel=5e-3), written
        seen.add(unit)
    assert seen == set(SIZES[name])  # every unit was written
