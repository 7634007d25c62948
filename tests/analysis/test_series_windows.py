"""series_by_source and mean_by_source: the one place samples become series, so their edges matter.

A sample's `t_ms` is the end of its interval in milliseconds; a window (start, end] keeps the intervals
that end inside it, the start excluded (the interval ending at the start lies before it).
"""

from __future__ import annotations

import pytest

from iolab.analysis.series import mean_by_source, series_by_source
from iolab.models import Sample


def _s(source: str, t_ms: int, value: float, metric: str = "disk.bw", ddir: str = "read") -> Sample:
    return Sample(metric, ddir, source, t_ms, value)


def test_series_are_in_seconds_and_in_time_order_per_source():
    samples = [_s("sda", 2500, 3.0), _s("sda", 500, 1.0), _s("sdb", 1000, 7.0), _s("sda", 1500, 2.0)]
    assert series_by_source(samples, "disk.bw", "read") == {
        "sda": ([0.5, 1.5, 2.5], [1.0, 2.0, 3.0]),
        "sdb": ([1.0], [7.0]),
    }


def test_other_metrics_and_directions_are_left_out():
    samples = [_s("sda", 1000, 1.0), _s("sda", 1000, 9.0, ddir="write"), _s("sda", 1000, 8.0, metric="disk.iops")]
    assert series_by_source(samples, "disk.bw", "read") == {"sda": ([1.0], [1.0])}


def test_the_mean_is_over_intervals_ending_inside_the_window_start_excluded_end_included():
    samples = [_s("sda", t * 1000, float(t)) for t in range(0, 6)]  # values 0..5 at 0..5 s
    assert mean_by_source(samples, "disk.bw", "read") == {"sda": pytest.approx(3.0)}  # 1..5: the one at 0 s is out
    assert mean_by_source(samples, "disk.bw", "read", 1.0, 3.0) == {"sda": pytest.approx(2.5)}  # 2 and 3
    assert mean_by_source(samples, "disk.bw", "read", 4.0) == {"sda": pytest.approx(5.0)}


def test_a_source_with_no_interval_in_the_window_has_no_mean():
    samples = [_s("sda", 1000, 1.0), _s("sdb", 5000, 2.0)]
    assert mean_by_source(samples, "disk.bw", "read", 2.0, 6.0) == {"sdb": pytest.approx(2.0)}
