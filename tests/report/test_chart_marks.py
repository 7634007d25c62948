"""Where a chart's marks sit, measured on the figure objects the code makes (issue 41 item 8): an outlier
drive's bar outlined thicker than the others and labelled "outlier" centred just above its top; each mode's
median a dotted line at the median; the scaling chart's ideal line, its efficiency labels beside their
points and a drop crossed out where it is."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Annotation

from iolab.analysis.outliers import find_outliers
from iolab.analysis.scaling import scaling_table
from iolab.doctor.derived import ArrayView
from iolab.report import charts
from iolab.views.run import ArrayFigures

MB = 1e6


def _array_chart():  # type: ignore[no-untyped-def]
    devices = [f"nvme{i}n1" for i in range(6)]
    together = {d: (1000 if d != "nvme3n1" else 400) * MB for d in devices}
    view = ArrayView("seqread", together, {}, [])
    report = find_outliers(together, view="together", metric="bandwidth")
    assert [s.device for s in report.outliers] == ["nvme3n1"]
    fig = charts.device_bars(ArrayFigures(view, {"together": report}, None))
    assert fig is not None
    FigureCanvasAgg(fig).draw()
    return fig, report


def test_an_outlier_s_bar_is_outlined_and_labelled_centred_just_above_it():
    fig, _ = _array_chart()
    (ax,) = fig.axes
    bars = list(ax.patches)
    outlier = bars[3]
    assert outlier.get_linewidth() == 2.5 and all(b.get_linewidth() == 1 for b in bars if b is not outlier)
    assert outlier.get_edgecolor()[:3] == pytest.approx((0xD6 / 255, 0x27 / 255, 0x28 / 255), abs=0.01)
    (label,) = [a for a in ax.get_children() if isinstance(a, Annotation)]
    assert label.get_text() == "outlier" and label.get_ha() == "center"
    assert label.xy == pytest.approx((outlier.get_x() + outlier.get_width() / 2, outlier.get_height()))
    box, top = label.get_window_extent(), ax.transData.transform(label.xy)
    assert box.x0 < top[0] < box.x1 and abs((box.x0 + box.x1) / 2 - top[0]) < 1.0  # centred on the bar
    assert label.xyann == (0, 3) and 0 < box.y0 - top[1] < 8  # 3 points above its top, not on it


def test_the_median_of_a_judged_mode_is_a_dotted_line_at_the_median():
    fig, report = _array_chart()
    (ax,) = fig.axes
    (median,) = [line for line in ax.get_lines() if line.get_label() == "median together"]
    assert median.get_linestyle() == ":" and median.get_linewidth() == 1
    assert set(median.get_ydata()) == {report.median / MB}


def test_the_scaling_chart_draws_the_ideal_its_efficiencies_and_a_drop_where_they_are():
    report = scaling_table([(("a",), 600 * MB), (("b",), 590 * MB), (("a", "b"), 500 * MB), (("a", "b", "c"), 1500 * MB)],
                           {"a": 600 * MB, "b": 590 * MB, "c": 610 * MB})  # fmt: skip
    fig = charts.scaling_chart(report)
    assert fig is not None
    (ax,) = fig.axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    ideal = lines["ideal: the same devices alone, summed"]
    assert ideal.get_linestyle() == "--" and list(ideal.get_xdata()) == [1, 2, 3]
    assert list(ideal.get_ydata()) == pytest.approx([600, 1190, 1800])
    measured = lines["measured aggregate (best set)"]
    assert list(measured.get_ydata()) == pytest.approx([600, 500, 1500]) and measured.get_marker() == "o"
    (drop,) = [line for label, line in lines.items() if label.startswith("slower than")]
    assert drop.get_marker() == "x" and drop.get_markersize() == 12 and list(drop.get_xdata()) == [2]
    labels = {a.get_text(): a.xy for a in ax.get_children() if isinstance(a, Annotation)}
    assert labels == {"100%": (1, 600), "42%": (2, 500), "83%": (3, 1500)}
    assert ax.get_ylim()[0] == 0
