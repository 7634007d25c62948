"""What a chart draws, as text a test can pin: every axes' scales, limits, labels and ticks, and every line,
bar, band, point and label on it, numbers to six significant digits.

Why: the charts of a page were held by contracts (labels inside the axes, one colour per series) and by
browser tests, and a slip in what a chart plots (a bar's height, a band's edges, which points a line joins,
a tick's text) drew a chart those passed. The digest reads the Figure matplotlib holds before it is turned
into SVG (no rendering: the same figure's SVG differs by matplotlib's version in ways no reader sees), so a
page's charts can be pinned beside its text (tests/views/test_pages_pinned.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from matplotlib.colors import to_hex


def _n(value: Any) -> str:
    try:
        return f"{float(value):.6g}"
    except (TypeError, ValueError):
        return str(value)


def _xy(points: Any) -> str:
    return " ".join(f"({_n(x)},{_n(y)})" for x, y in points)


def _colour(value: Any) -> str:
    try:
        return to_hex(value, keep_alpha=True)
    except (TypeError, ValueError):
        return str(value)


def _ticks(axis: Any) -> str:
    locs = list(axis.get_majorticklocs())
    labels = axis.get_major_formatter().format_ticks(locs) if locs else []
    return ", ".join(f"{_n(loc)}={label}" for loc, label in zip(locs, labels, strict=True))


def _artists(ax: Any) -> list[str]:
    out = []
    grid = [line.get_visible() for axis in (ax.xaxis, ax.yaxis) for line in axis.get_gridlines()[:1]]
    out.append(f"  grid: {grid}")
    for line in ax.get_lines():
        out.append(
            f"  line {line.get_label()!r} {_colour(line.get_color())} {line.get_linestyle()} {line.get_marker()}"
            f" width {_n(line.get_linewidth())} size {_n(line.get_markersize())} alpha {line.get_alpha()}: "
            + _xy(line.get_xydata())
        )
    for patch in ax.patches:
        box = patch.get_bbox() if hasattr(patch, "get_bbox") else None
        where = f"{_n(box.x0)} {_n(box.y0)} {_n(box.x1)} {_n(box.y1)}" if box is not None else ""
        out.append(
            f"  {type(patch).__name__} {_colour(patch.get_facecolor())} edge {_colour(patch.get_edgecolor())}"
            f" width {_n(patch.get_linewidth())} hatch={patch.get_hatch()} alpha {patch.get_alpha()}: {where}"
        )
    for collection in ax.collections:
        offsets = collection.get_offsets()
        paths = [_xy(path.vertices) for path in collection.get_paths()[:4]]
        widths = " ".join(_n(w) for w in collection.get_linewidths())
        out.append(
            f"  {type(collection).__name__} {collection.get_label()!r} widths {widths} alpha {collection.get_alpha()}:"
            f" {_xy(offsets)} | " + " / ".join(paths)
        )
    for text in ax.texts:
        x, y = text.get_position()
        anchor = getattr(text, "xy", None)  # an annotation: the point it names, its text offset from there
        offset = f" naming ({_n(anchor[0])},{_n(anchor[1])}) from {text.anncoords}" if anchor is not None else ""
        out.append(
            f"  text {text.get_text()!r} at ({_n(x)},{_n(y)}){offset} {text.get_ha()}/{text.get_va()} "
            f"size {_n(text.get_fontsize())} {_colour(text.get_color())} rotation {_n(text.get_rotation())}"
        )
    legend = ax.get_legend()
    if legend is not None:
        out.append("  legend: " + ", ".join(t.get_text() for t in legend.get_texts()))
    return out


def digest(figure: Any) -> str:
    """A figure's axes one after another, each with what it draws."""
    width, height = figure.get_size_inches()
    lines = [f"figure {_n(width)}x{_n(height)} in: " + " | ".join(t.get_text() for t in figure.texts)]
    for ax in figure.axes:
        lines.append(
            f" axes {ax.get_title()!r} x={ax.get_xlabel()!r} {ax.get_xscale()} {_n(ax.get_xlim()[0])}..{_n(ax.get_xlim()[1])}"
            f" y={ax.get_ylabel()!r} {ax.get_yscale()} {_n(ax.get_ylim()[0])}..{_n(ax.get_ylim()[1])}"
        )
        lines.append(f"  xticks: {_ticks(ax.xaxis)}")
        lines.append(f"  yticks: {_ticks(ax.yaxis)}")
        lines += _artists(ax)
    return "\n".join(lines) + "\n"


class Drawn:
    def __init__(self) -> None:
        self.charts: list[tuple[str, str, str]] = []

    def text(self) -> str:
        return "".join(f"== {chart_id}: {title}\n{text}" for chart_id, title, text in self.charts)


@contextlib.contextmanager
def drawn() -> Iterator[Drawn]:
    """Every figure a page hands `ChartOutput.make` while inside, digested (`Drawn.text()`)."""
    from iolab.report.html import ChartOutput

    found = Drawn()
    make = ChartOutput.make

    def keeping(self, chart_id, title, figure, caption=""):  # type: ignore[no-untyped-def]
        if figure is not None:
            found.charts.append((chart_id, title, digest(figure)))
        return make(self, chart_id, title, figure, caption)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ChartOutput, "make", keeping)
        yield found
