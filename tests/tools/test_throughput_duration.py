"""A tool's throughput figure whose time is not known (none printed, nan, inf, not positive) makes a Result with
no runtime, no operation count and only the bytes the tool gave: it raised in round() when the tool gave no bytes
(nan) and counted negative bytes (a negative time)."""

from __future__ import annotations

import math

import pytest

from iolab.tools.model import throughput

NO_TIME = [0.0, -0.0, -1.0, -1e300, math.nan, -math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("seconds", NO_TIME)
@pytest.mark.parametrize("io_bytes", [0, 4096])
@pytest.mark.parametrize(("bw", "ops"), [(5e8, 1000.0), (0.0, 0.0), (1e15, 1e12)])
def test_a_figure_without_a_time_has_no_runtime_no_count_and_only_the_bytes_given(seconds, io_bytes, bw, ops):
    direction = throughput("read", bw, ops, seconds, 2, "ior-3.3.0", io_bytes=io_bytes).directions["read"]
    assert (direction.runtime_ms, direction.total_ios, direction.io_bytes) == (0, 0, io_bytes)
    assert (direction.bw_bytes, direction.iops) == (bw, ops)
