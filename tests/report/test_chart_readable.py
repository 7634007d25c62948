"""A table's bar chart can be read (issue 42 item 8): no text runs past the figure's edge, and no two tick
labels of one axis are written over each other, whether the table has one workload or twenty, short names or
long ones (a sweep's charts are held to the same in tests/report/test_charts.py). Where text sits is read from matplotlib's own layout (each text's extent against the figure),
never from pixels; tables go through the same `notebook_tables` as a run's page."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from iolab.models import DirectionResult, LatencyStats, Point, PointRecord, Result, Target
from iolab.report import charts
from iolab.views.tables import notebook_tables

MB = 1e6
TARGET = Target("/data", "directory", "/data/iolab-scratch-0.dat", 1 << 30, scratch=True)


def _result(bw: float, mean_ns: float) -> Result:
    latency = LatencyStats("clat", 1000, mean_ns, mean_ns / 2, mean_ns * 2, mean_ns / 3, {99.0: 3 * mean_ns})
    return Result({"read": DirectionResult("read", bw, bw / 4096, 1000, 1 << 30, 10_000, latency)}, 5.0, 5.0, 1, "")


def _problems(fig: Figure) -> list[str]:
    """Texts cut off at the figure's edge, and pairs of tick labels of one axis drawn over each other."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw_without_rendering()
    frame = fig.bbox
    found = []
    for axis in fig.findobj(Axis):
        low, high = sorted(axis.get_view_interval())
        ticks = [t for t in axis.get_major_ticks() if low - 1e-9 <= t.get_loc() <= high + 1e-9]
        labels = [t.label1 for t in ticks if t.label1.get_visible() and t.label1.get_text().strip()]
        boxes = [(label.get_text(), label.get_window_extent(renderer)) for label in labels]
        for text, box in boxes:
            if box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1 or box.y1 > frame.y1 + 1:
                found.append(f"cut off: {text}")
        found += [f"overlap: {a} / {b}" for (a, x), (b, y) in combinations(boxes, 2) if x.overlaps(y)]
    for ax in fig.axes:
        for text in (ax.xaxis.label, ax.yaxis.label, ax.title):
            box = text.get_window_extent(renderer)
            if text.get_text() and (box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1):
                found.append(f"cut off: {text.get_text()}")
    return found


def _overview(rng: random.Random, n: int, mb_per_s: float | None = None) -> list[PointRecord]:
    """`n` workloads side by side (one table: they differ in name only), some with long names."""
    records = []
    for i in range(n):
        name = f"w{i}" + ("-" + "x" * rng.randint(10, 28) if rng.random() < 0.4 else "")
        options = {"rw": "randread", "bs": "4k"}
        bw = (mb_per_s or 10 ** rng.uniform(1, 3.7)) * MB  # 10 MB/s to 5 GB/s: 2.4k to 1.2M IOPS of 4k
        records.append(PointRecord(i + 1, 1, i + 1, Point(name, TARGET, options), "ok", result=_result(bw, 1e5)))
    return records


@pytest.mark.parametrize(("n", "mb_per_s"), [(1, 700.0), (1, 90.0), (1, 4500.0), (2, None), (5, None), (20, None)])
def test_bars_of_one_to_twenty_workloads_are_readable(n, mb_per_s):
    """A one-bar table's IOPS axis (700 MB/s of 4k: 171k IOPS) was ticked every 25k: "100.0k" over "125.0k"."""
    (table,) = notebook_tables(_overview(random.Random(n), n, mb_per_s), {})
    fig = charts.workload_bars(table)
    assert fig is not None
    assert _problems(fig) == []
