"""`compare --fail-on-regression` trips only on workloads judged slower, by more than the threshold on the
change's point estimate: an inconclusive −32% (noise) never trips it, nor does a faster or equivalent one; a
latency that rose is a loss like a rate that fell."""

from __future__ import annotations

from dataclasses import replace

import pytest

from iolab.analysis.compare import CompareParams, compare_samples
from iolab.models.workload import higher_is_better
from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples


def _comparison(pairs: list[tuple[str, str, list[float], list[float]]]) -> Comparison:
    rows = []
    for name, metric, a, b in pairs:
        sa, sb = WorkloadSamples(name, name, "/data", metric, a), WorkloadSamples(name, name, "/data", metric, b)
        params = replace(CompareParams(), higher_is_better=higher_is_better(metric))  # as compare_runs judges
        rows.append(ComparedWorkload(sa, sb, compare_samples(a, b, params)))
    return Comparison("base", "new", [1], [2], rows, [], [], None)


PAIRS = [
    ("slower", "bw", [400.0, 404.0, 398.0], [300.0, 302.0, 305.0]),  # -25%, judged slower
    ("noisy", "bw", [400.0, 200.0, 600.0], [300.0, 100.0, 500.0]),  # -32%, inconclusive
    ("same", "bw", [100.0, 101.0, 99.0], [103.0, 104.0, 102.0]),  # equivalent
    ("faster", "iops", [1e5, 1.01e5, 0.99e5], [1.3e5, 1.31e5, 1.29e5]),  # +30%
    ("latency", "lat_mean", [100.0, 101.0, 99.0], [130.0, 131.0, 129.0]),  # +30% latency: slower
]


@pytest.mark.parametrize(("threshold", "tripped"), [(0.05, ["slower", "latency"]), (0.27, ["latency"]), (0.5, [])])
def test_only_rows_judged_slower_beyond_the_threshold_trip_the_gate(threshold, tripped):
    comparison = _comparison(PAIRS)
    kinds = {row.a.name: row.verdict.kind for row in comparison.rows}
    assert kinds == {
        "slower": "slower",
        "noisy": "inconclusive",
        "same": "equivalent",
        "faster": "faster",
        "latency": "slower",
    }
    assert [row.a.name for row in comparison.regressions(threshold)] == tripped
