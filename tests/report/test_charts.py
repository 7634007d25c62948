"""The report's charts read as their tables do: what their SVG says, and whether any of its text is cut off.

Charts are matplotlib figures kept as SVG with text as text (`svg.fonttype=none`), so each test reads the
words and numbers a reader sees from the SVG's <text> elements, and where text sits from matplotlib's own
layout (the extent of each text artist against the figure), never from pixels. Inputs are built here:
records of known results run through the same `notebook_tables` as a run's page; metadata results are
fio's own output for filecreate/filestat/filedelete (tests/data/fio).
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from itertools import combinations
from pathlib import Path

import pytest
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.text import Annotation, Text

from iolab.analysis.compare import compare_samples
from iolab.analysis.outliers import find_outliers
from iolab.analysis.scaling import scaling_table
from iolab.analysis.stability import summarize
from iolab.doctor.derived import ArrayView
from iolab.fio.parse import aggregate, parse_output
from iolab.models import DirectionResult, LatencyStats, Point, PointRecord, Result, Target
from iolab.models.units import counted
from iolab.report import charts
from iolab.report.chart_axes import ladder, latency_tick
from iolab.report.cross_charts import comparison_chart
from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples
from iolab.views.run import ArrayFigures
from iolab.views.tables import NotebookTable, notebook_tables
from iolab.views.timeline import Span, Timeline

FIO_DATA = Path(__file__).resolve().parent.parent / "data" / "fio"
MB = 1e6
TARGET = Target("/data", "directory", "/data/iolab-scratch-0.dat", 1 << 30, scratch=True)


def _texts(fig: Figure) -> list[str]:
    """Every text of the figure's SVG, as a reader sees it (a tick label split into tspans joined again)."""
    svg = ET.fromstring(charts.render_svg(fig, "test"))
    return [
        "".join(element.itertext()).strip()
        for element in svg.iter("{http://www.w3.org/2000/svg}text")
        if "".join(element.itertext()).strip()
    ]


def _drawn(fig: Figure) -> list[Text]:
    """The figure's texts that are drawn: visible, not empty, and for a tick label, its tick in view (matplotlib
    keeps labels of ticks beyond the limits, and does not draw them)."""
    unseen = set()
    for axis in fig.findobj(Axis):
        low, high = sorted(axis.get_view_interval())
        for tick in axis.get_major_ticks() + axis.get_minor_ticks():
            if not low - 1e-9 * abs(high - low) <= tick.get_loc() <= high + 1e-9 * abs(high - low):
                unseen |= {id(tick.label1), id(tick.label2)}
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in unseen]


def _laid_out(fig: Figure) -> RendererAgg:
    """The renderer of `fig`, the figure laid out (drawn without rendering) for the checks to read its boxes."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw_without_rendering()
    return renderer


def _cut_off(fig: Figure, renderer: RendererAgg | None = None) -> list[str]:
    """The texts that reach past the figure's edge: the part beyond it is not drawn (`renderer`: the figure
    already laid out, unchanged since)."""
    renderer = renderer or _laid_out(fig)
    frame = fig.bbox
    cut = []
    for text in _drawn(fig):
        box = text.get_window_extent(renderer)
        if box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1 or box.y1 > frame.y1 + 1:
            cut.append(text.get_text())
    return cut


def _overlapping(labels: list[Text], fig: Figure, renderer: RendererAgg | None = None) -> list[tuple[str, str]]:
    """Pairs of labels whose boxes overlap: one is written over the other (`renderer` as for `_cut_off`)."""
    renderer = renderer or _laid_out(fig)
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in labels if t.get_visible() and t.get_text()]
    return [(a, b) for (a, box_a), (b, box_b) in combinations(boxes, 2) if box_a.overlaps(box_b)]


def _record(point_id: int, options: dict[str, str], result: Result, name: str = "") -> PointRecord:
    point = Point(name or f"p{point_id}", TARGET, options)
    return PointRecord(point_id, 1, point_id, point, "ok", result=result)


def _read(bw: float, mean_ns: float, p99_ns: float) -> Result:
    latency = LatencyStats("lat", 1000, mean_ns, mean_ns / 2, mean_ns * 2, mean_ns / 3, {99.0: p99_ns})
    return Result({"read": DirectionResult("read", bw, bw / 4096, 1000, 1 << 30, 10_000, latency)}, 5.0, 5.0, 1, "")


def _qd_sweep(latencies_ns: list[float]) -> NotebookTable:
    """A 4k random read iodepth sweep, bandwidth rising with depth, with these mean latencies."""
    records = [
        _record(i, {"rw": "randread", "bs": "4k", "iodepth": str(qd)}, _read(100 * MB * (i + 1), lat, lat * 3))
        for i, (qd, lat) in enumerate(zip((1, 2, 4, 8, 16, 32), latencies_ns, strict=False))
    ]
    (table,) = notebook_tables(records, {})
    assert table.axis == "iodepth"
    return table


def _percentiles(table: NotebookTable, low_ns: float, high_ns: float) -> dict:
    """p50, p99 and p99.9 per row, spread evenly from `low_ns` to `high_ns` across the rows."""
    step = (high_ns - low_ns) / (3 * len(table.rows) - 1)
    return {
        (i, "read"): {pct: summarize([low_ns + step * (3 * i + j)]) for j, pct in enumerate(charts.PERCENTILES_SHOWN)}
        for i in range(len(table.rows))
    }


# --------------------------------------------------------------------------- log latency axes


@pytest.mark.parametrize(
    ("low_ns", "high_ns", "ticks"),
    [
        (600e3, 700e3, ["500 µs", "1 ms"]),  # within a decade: matplotlib labelled 6 × 10^2 and 7 × 10^2
        (120e3, 900e3, ["100 µs", "200 µs", "500 µs", "1 ms"]),
        (3e3, 40e6, ["1 µs", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms"]),  # decades beyond ten steps
    ],
)
def test_a_latency_axis_is_ticked_100_200_500_with_units_never_in_powers_of_ten(low_ns, high_ns, ticks):
    table = _qd_sweep([low_ns] * 6)
    fig = charts.sweep_latency(table, _percentiles(table, low_ns, high_ns))
    assert fig is not None
    texts = _texts(fig)
    (ax,) = fig.axes
    assert [label.get_text() for label in ax.get_yticklabels() if label.get_text()] == ticks
    assert not [t for t in texts if "×" in t or "10^" in t or "e+" in t]
    assert "latency (log scale)" in texts


def test_the_ladder_reaches_the_steps_around_the_data():
    assert ladder(0.6, 0.7) == [0.5, 1.0]
    assert ladder(100, 100) == [100]
    assert ladder(3, 40) == [2, 5, 10, 20, 50]
    assert [latency_tick(ns) for ns in (0.5, 500, 1e3, 2.5e6, 1e9)] == ["0.5 ns", "500 ns", "1 µs", "2.5 ms", "1 s"]


def test_latency_against_throughput_keeps_every_label_inside_the_figure():
    # the deepest queue is the fastest and the slowest: its label sits at the top right corner
    table = _qd_sweep([80e3, 90e3, 120e3, 200e3, 400e3, 900e3])
    fig = charts.latency_throughput(table)
    assert fig is not None
    assert "iodepth=32" in _texts(fig)
    assert _cut_off(fig) == []
    (ax,) = fig.axes
    inside = ax.get_window_extent()
    for label in (t for t in ax.texts if t.get_text().startswith("iodepth=")):
        assert inside.contains(*label.get_window_extent().p0) and inside.contains(*label.get_window_extent().p1)


# --------------------------------------------------------------------------- metadata workloads


def _metadata_result(engine: str) -> Result:
    output = parse_output((FIO_DATA / f"metadata-{engine}.json").read_text())
    (group,) = output.groups
    return aggregate(group.entries, output.version)


def test_file_operations_are_charted_in_operations_per_second_under_their_engine_s_name():
    created = _metadata_result("filecreate")
    records = [
        _record(i, {"ioengine": "filecreate", "numjobs": str(n), "nrfiles": "500"}, created)
        for i, n in enumerate((1, 2, 4), start=1)
    ]
    (table,) = notebook_tables(records, {})
    assert table.axis == "numjobs"
    throughput = _texts(charts.sweep_throughput(table))
    assert "file operations per second" in throughput and "filecreate" in throughput
    assert "read" not in throughput and charts.BW_AXIS not in throughput
    latency = charts.sweep_latency(table, _percentiles(table, 200e3, 900e3))
    assert {"filecreate p50", "filecreate p99", "filecreate p99.9"} <= set(_texts(latency))
    versus = _texts(charts.latency_throughput(table))
    assert "file operations per second" in versus and "filecreate mean" in versus


def test_each_of_the_three_operations_has_its_table_charted_in_operations_per_second():
    records = [
        _record(i, {"ioengine": engine, "numjobs": "2", "nrfiles": "500"}, _metadata_result(engine), name=engine[4:])
        for i, engine in enumerate(("filecreate", "filestat", "filedelete"), start=1)
    ]
    tables = notebook_tables(records, {})  # one table per operation (views.tables._metadata_tables)
    assert [t.title.split(":")[0] for t in tables] == ["file create", "file stat", "file remove"]
    for table, engine, rate in zip(tables, ("filecreate", "filestat", "filedelete"), (2985, 90909, 8929), strict=True):
        fig = charts.sweep_throughput(table)
        assert fig is not None
        (ax,) = fig.axes  # no MB/s panel: a file operation moves no data worth a bandwidth
        texts = _texts(fig)
        assert "file operations per second" in texts and charts.BW_AXIS not in texts and engine in texts
        assert [round(y) for y in ax.lines[0].get_ydata()] == [rate]  # fio's iops, as reported


# --------------------------------------------------------------------------- timeline


def test_each_band_of_the_timeline_is_named_after_its_point():
    names = [f"seqread-1m-qd32-{label}" for label in ("together", "x28", "x24", "without-nvme13n1")]
    points = [Span(12.0 * i, 12.0 * i + 10, name) for i, name in enumerate(names)]
    series = {"fio jobs (sum)": ([float(t) for t in range(48)], [MB * (1000 + t) for t in range(48)])}
    fig = charts.timeline_chart(Timeline(series=series, points=points))
    assert fig is not None
    texts = _texts(fig)
    assert all(name in texts for name in names)
    assert _cut_off(fig) == []
    (top,) = fig.axes[0].child_axes  # the names' axis (this test once read the panel's own, hidden, labels)
    assert [t.get_text() for t in top.get_xticklabels()] == names
    assert _overlapping(list(top.get_xticklabels()), fig) == []


def _generated_timeline(rng: random.Random) -> Timeline:
    """A run's timeline as the walks met them: 1 to 150 points of 1 to 60 s, names of 8 to 70 characters
    (wide letters among them), up to three devices, and dips anywhere, often several in a few seconds."""
    count = rng.choice([1, 5, 12, 150])
    seconds = rng.choice([1.0, 2.0] if count > 12 else [1.0, 10.0, 60.0])
    length = rng.choice([8, 20, 40, 70])
    names = [(f"p{i}-" + rng.choice("xmWi-") * length)[:length] for i in range(count)]
    points = [Span(i * (seconds + 0.4), i * (seconds + 0.4) + seconds, name) for i, name in enumerate(names)]
    times = [float(t) for t in range(int(points[-1].end_s) + 1)]
    series = {"fio jobs (sum)": (times, [MB * (500 + t) for t in times])}
    series.update({f"loop{d}": (times, [300 * MB] * len(times)) for d in range(rng.choice([0, 1, 3]))})
    dips = {}
    for name in series:
        starts = [rng.uniform(0, points[-1].end_s) for _ in range(rng.choice([0, 2, 6]))]
        dips[name] = [Span(t, t + rng.choice([1.0, 3.0]), f"step dip, -{rng.randint(10, 99)}%") for t in starts]
    return Timeline(series=series, points=points, dips=dips)


@pytest.mark.parametrize("seed", range(5))
def test_no_timeline_label_is_cut_off_or_written_over_another(seed):
    """Issue 42 item 8: dip labels written over each other ("step dip -57%-92%") and point names crowding
    the top. Every drawn text inside the figure; the names apart (every k-th when they stand too close,
    said on the axis); the dip labels of each panel apart."""
    rng = random.Random(seed)
    for _ in range(1):
        timeline = _generated_timeline(rng)
        fig = charts.timeline_chart(timeline)
        assert fig is not None
        # laid out once for every check: a draw is most of a check's time (3-6 draws were 2.9 CPU-s a seed),
        # and nothing below changes the figure (each box read is the same as after a draw of its own)
        renderer = _laid_out(fig)
        assert _cut_off(fig, renderer) == []
        (top,) = fig.axes[0].child_axes
        names = [t for t in top.get_xticklabels() if t.get_text()]
        assert _overlapping(names, fig, renderer) == []
        if len(names) < len(timeline.points):
            assert "point named" in fig.axes[-1].get_xlabel()
        for ax in fig.axes:
            assert _overlapping([c for c in ax.get_children() if isinstance(c, Annotation)], fig, renderer) == []


# --------------------------------------------------------------------------- arrays


def test_a_drop_to_one_device_is_said_in_the_singular():
    report = scaling_table([(("a",), 600 * MB), (("b",), 590 * MB), (("a", "b"), 500 * MB)])
    assert report.drops
    fig = charts.scaling_chart(report)
    assert fig is not None
    texts = _texts(fig)
    assert "slower than 1 device (-17%)" in texts
    assert not [t for t in texts if "1 devices" in t]
    assert _cut_off(fig) == []


def test_thirty_device_names_stand_apart_under_their_bars():
    devices = [f"nvme{i}n1" for i in range(30)]
    together = {d: 4000 * MB for d in devices}
    alone = {d: 6900 * MB for d in devices}
    view = ArrayView("seqread", together, alone, [])
    reports = {
        mode: find_outliers(values, view=mode, metric="bandwidth")
        for mode, values in (("together", together), ("alone", alone))
    }
    fig = charts.device_bars(ArrayFigures(view, reports, None))
    assert fig is not None
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == devices
    assert _overlapping(list(ax.get_xticklabels()), fig) == []
    assert _cut_off(fig) == []


# --------------------------------------------------------------------------- comparison


def test_compare_bars_are_the_figures_the_table_shows_with_the_range_as_whiskers():
    # geometric means 581 and 408 (medians 560 and 405, means 587 and 408): the figures whose ratio is the change
    a = WorkloadSamples("w", "seq-read", "/data", "bw", [500 * MB, 560 * MB, 700 * MB])
    b = WorkloadSamples("w", "seq-read", "/data", "bw", [400 * MB, 405 * MB, 420 * MB])
    verdict = compare_samples(a.values, b.values)
    comparison = Comparison("base", "new", [1], [2], [ComparedWorkload(a, b, verdict)], [], [], None)
    fig = comparison_chart(comparison)
    assert fig is not None
    (ax,) = fig.axes
    assert [round(bar.get_width()) for bar in ax.patches] == [581, 408]
    assert any("bars: geometric mean of the repeats, whiskers: lowest to highest" in t for t in _texts(fig))
    assert any(f"{verdict.kind} {408.25 / 580.88 - 1:+.1%}" in t for t in _texts(fig))
    assert _cut_off(fig) == []


def test_compare_bars_of_identical_repeats_draw_with_no_whisker():
    """Rate-capped repeats that read exactly alike (4,000 IOPS each): exp(mean log) landed an ulp above them, a
    whisker below zero, and matplotlib refused it (`iolab report --html` crashed); every such side draws."""
    for value in (4000.0, 3999.9999999999995, 0.1, 1e12 / 3, 217.0):
        a = WorkloadSamples("w", "rr", "/data", "iops", [value] * 3)
        b = WorkloadSamples("w", "rr", "/data", "iops", [value] * 2)
        comparison = Comparison(
            "base", "new", [1], [2], [ComparedWorkload(a, b, compare_samples(a.values, b.values))], [], [], None
        )
        fig = comparison_chart(comparison)
        assert fig is not None, value


def test_counts_take_the_noun_in_the_right_number():
    assert [counted(n, "device") for n in (0, 1, 2, 1000)] == ["0 devices", "1 device", "2 devices", "1,000 devices"]
    assert counted(1, "directory", "directories") == "1 directory"
    assert counted(3, "directory", "directories") == "3 directories"
