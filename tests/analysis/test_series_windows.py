"""series_by_source: the one place samples become series, so their order and what they leave out matter.

A sample's `t_ms` is the end of its interval in milliseconds; the series holds it in seconds.
"""

from __future__ import annotations

from iolab.analysis.series import series_by_source
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
