"""compare's chart draws what its axis says: each bar the side's geometric mean (the verdict table's figure, a
lone outlier repeat left out: B's bar over A's is the verdict's change), each whisker from that side's lowest
repeat to its highest (the outlier too), and, where the workloads are judged on different
metrics, every pair as a percentage of side A's figure (A's bar at 100)."""

from __future__ import annotations

import math

import pytest

from iolab.analysis.compare import compare_samples, kept_values
from iolab.report.cross_charts import comparison_chart
from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples

MB = 1e6


def _figure(values: list[float]) -> float:
    """The geometric mean of the repeats a verdict rests on."""
    kept, _ = kept_values(values)
    return math.exp(sum(math.log(v) for v in kept) / len(kept))


def _comparison(pairs: list[tuple[str, list[float], list[float]]]) -> Comparison:
    rows = []
    for i, (metric, a, b) in enumerate(pairs):
        sa, sb = (WorkloadSamples(f"w{i}", f"w{i}", "/data", metric, values) for values in (a, b))
        rows.append(ComparedWorkload(sa, sb, compare_samples(a, b)))
    return Comparison("base", "new", [1], [2], rows, [], [], None)


def _drawn(fig) -> list[tuple[float, float, float]]:
    """(bar length, whisker's low end, whisker's high end) of every bar, in drawing order (A, B of each row)."""
    (ax,) = fig.axes
    out = []
    for container in ax.containers:
        if not hasattr(container, "errorbar") or container.errorbar is None:
            continue
        (bar,) = container.patches
        (segment,) = container.errorbar.lines[2][0].get_segments()
        out.append((bar.get_width(), min(segment[:, 0]), max(segment[:, 0])))
    return out


def test_each_bar_is_its_sides_geometric_mean_and_its_whisker_spans_its_repeats():
    pairs = [
        ("bw", [500 * MB, 560 * MB, 700 * MB], [400 * MB, 405 * MB, 420 * MB]),
        ("bw", [90 * MB, 130 * MB], [140 * MB, 150 * MB, 190 * MB]),
    ]
    fig = comparison_chart(_comparison(pairs))
    assert fig is not None
    drawn = _drawn(fig)
    expected = [(_figure(v) / MB, min(v) / MB, max(v) / MB) for _, a, b in pairs for v in (a, b)]
    assert drawn == [pytest.approx(e) for e in expected]
    assert kept_values(pairs[1][2])[1] == (190 * MB,)  # B's 190 is a lone outlier: the bar leaves it out
    for row, (a, b) in zip(_comparison(pairs).rows, zip(*[iter(drawn)] * 2, strict=True), strict=True):
        assert b[0] / a[0] == pytest.approx(1 + row.verdict.change)


def test_workloads_judged_on_different_metrics_are_drawn_as_percent_of_side_a():
    pairs = [("bw", [500 * MB, 600 * MB], [250 * MB, 300 * MB]), ("iops", [1000.0, 1100.0, 1200.0], [1500.0, 1800.0])]
    fig = comparison_chart(_comparison(pairs))
    assert fig is not None
    (ax,) = fig.axes
    assert ax.get_xlabel().startswith("% of base's geometric mean")
    for (metric, a, b), got in zip(pairs, zip(*[iter(_drawn(fig))] * 2, strict=True), strict=True):
        unit = _figure(a) / 100
        assert got[0] == pytest.approx((100.0, min(a) / unit, max(a) / unit)), metric
        assert got[1] == pytest.approx((_figure((b)) / unit, min(b) / unit, max(b) / unit)), metric
