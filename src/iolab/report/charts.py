"""The report's figures, drawn with matplotlib and kept as inline SVG (and PNG on request).

Every figure function takes plain report data and returns a matplotlib
`Figure` (or None when there is nothing to draw); `render_svg` turns it into
markup for the page. Figures are made with `Figure()` directly, never
pyplot, so no GUI backend or global figure state is involved and PNGs go
through Agg. Bandwidth is MB/s = 10^6 bytes/s on every axis, as in the
tables (`units.MB`), and each axis says so.

SVG output is made to diff cleanly: text stays text (`svg.fonttype=none`),
the date is left out and element ids are salted with the chart's own id,
which is stable and also keeps ids unique when many SVGs share one page.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from iolab.analysis.stability import Stability
from iolab.models import units
from iolab.models.array_names import natural_key
from iolab.report.chart_axes import beside, latency_log_axis
from iolab.report.chart_labels import every, ordinal, rows, text_inches
from iolab.views.tables import NotebookTable, Row

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from iolab.analysis.outliers import OutlierReport
    from iolab.analysis.scaling import ScalingReport
    from iolab.views.run import ArrayFigures
    from iolab.views.timeline import Span, Timeline

BW_AXIS = "bandwidth (MB/s, 1 MB = 10^6 bytes)"
IOPS_AXIS = "IOPS (I/O per second)"
OPS_AXIS = "file operations per second"
PERCENTILES_SHOWN = (50.0, 99.0, 99.9)
WIDTH_IN = 9.0
# Colour per direction, and for marks, from matplotlib's default cycle so charts match each other.
DIR_COLOURS = {"read": "#1f77b4", "write": "#d62728", "trim": "#2ca02c", None: "#1f77b4"}
PERCENTILE_STYLES = {50.0: "-", 99.0: "--", 99.9: ":"}
MARK_COLOUR = "#d62728"
POINT_NAME_IN_PER_CHAR = 0.075  # a character of an x-small label, in inches (7 pt type, with room)


def _figure(height_in: float, columns: int = 1) -> tuple[Figure, list]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH_IN, height_in), layout="constrained")
    axes = fig.subplots(1, columns, squeeze=False)[0]
    for ax in axes:
        ax.grid(True, alpha=0.3)
    return fig, list(axes)


def render_svg(fig: Figure, chart_id: str) -> str:
    """The figure as an `<svg>` element (no XML prolog), deterministic for the same data and id."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": chart_id}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def render_png(fig: Figure) -> bytes:
    """The figure as PNG bytes, written by the caller through `iolab.private` (never by matplotlib to a
    path: savefig(path) follows a link planted there)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def latency_scale(values_ns: Sequence[float]) -> tuple[float, str]:
    """(divisor, unit) that puts the typical latency in 1-999 of a unit: the tables' convention."""
    typical = sorted(values_ns)[len(values_ns) // 2] if values_ns else 0.0
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if typical >= scale:
            return scale, unit
    return 1.0, "ns"


def _directions(table: NotebookTable) -> list[str | None]:
    return list(dict.fromkeys(row.ddir for row in table.rows if not row.failed))


def operation(row: Row) -> str | None:
    """The file operation a row measured (filecreate, filestat, filedelete ...), None for a row of I/O: the
    view's, read from the workload's options (`Row.operation`), never back out of the rendered cells.

    fio reports these engines' operations as reads; their rate is operations per second and their "MB/s"
    is no transfer, so a chart shows the rate under the operation's name.
    """
    return row.operation


def _table_operation(table: NotebookTable) -> str | None:
    """The one file operation every row of the table measured, else None."""
    found = {operation(row) for row in table.rows}
    return found.pop() if len(found) == 1 else None


def _series_label(table: NotebookTable, ddir: str | None) -> str:
    """A line's legend: the file operation (`filecreate`), or the direction (`read`)."""
    return _table_operation(table) or ddir or "all"


def _axis_values(table: NotebookTable) -> list[str]:
    """The swept values in table order (the first cell of each workload's rows)."""
    return list(dict.fromkeys(row.cells[0] for row in table.rows))


def _series(table: NotebookTable, ddir: str | None, key: str) -> tuple[list[int], list[float], list[float]]:
    """x positions, means and stddevs (0 when unrepeated) of one measure for one direction."""
    positions = {value: i for i, value in enumerate(_axis_values(table))}
    xs, means, errs = [], [], []
    for row in table.rows:
        stats = row.numbers.get(key)
        if row.ddir == ddir and stats is not None:
            xs.append(positions[row.cells[0]])
            means.append(stats.mean)
            errs.append(stats.stddev or 0.0)
    return xs, means, errs


def _label_axis(ax: Axes, table: NotebookTable) -> None:
    values = _axis_values(table)
    ax.set_xticks(range(len(values)), values)
    ax.set_xlabel(table.axis or "")


def sweep_throughput(table: NotebookTable) -> Figure | None:
    """MB/s and IOPS against the swept parameter, error bars = sample stddev of the repeats."""
    directions = _directions(table)
    if table.axis is None or not directions:
        return None
    panels = (
        [("iops", 1.0, OPS_AXIS)]
        if _table_operation(table)
        else [("bw_bytes", units.MB, BW_AXIS), ("iops", 1.0, IOPS_AXIS)]
    )
    fig, axes = _figure(3.4, columns=len(panels))
    for ddir in directions:
        for ax, (key, scale, _) in zip(axes, panels, strict=True):
            xs, means, errs = _series(table, ddir, key)
            ax.errorbar(
                xs,
                [m / scale for m in means],
                yerr=[e / scale for e in errs],
                marker="o",
                capsize=4,
                color=DIR_COLOURS.get(ddir),
                label=_series_label(table, ddir),
            )
    for ax, (_, _, ylabel) in zip(axes, panels, strict=True):
        _label_axis(ax, table)
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize="small")
    _iops_ticks(axes[-1], "y")
    return fig


def _percentile_points(
    table: NotebookTable,
    percentiles: dict[tuple[int, str | None], dict[float, Stability]],
    positions: dict[str, int],
    ddir: str | None,
    pct: float,
) -> list[tuple[int, Stability]]:
    """(axis position, summary) of one direction's percentile, for the rows that have it."""
    return [
        (positions[row.cells[0]], percentiles[(i, ddir)][pct])
        for i, row in enumerate(table.rows)
        if row.ddir == ddir and pct in percentiles.get((i, ddir), {})
    ]


def sweep_latency(
    table: NotebookTable, percentiles: dict[tuple[int, str | None], dict[float, Stability]]
) -> Figure | None:
    """p50, p99 and p99.9 against the swept parameter (log scale), each the mean of the repeats' own.

    `percentiles` maps (row index, direction) to the row's summaries by percentile.
    """
    if table.axis is None or not any(percentiles.values()):
        return None
    scale, _ = latency_scale([s.mean for by_pct in percentiles.values() for s in by_pct.values()])
    positions = {value: i for i, value in enumerate(_axis_values(table))}
    fig, (ax,) = _figure(3.6)
    for ddir in _directions(table):
        for pct in PERCENTILES_SHOWN:
            points = _percentile_points(table, percentiles, positions, ddir, pct)
            if points:
                ax.errorbar(
                    [x for x, _ in points],
                    [s.mean / scale for _, s in points],
                    yerr=[(s.stddev or 0.0) / scale for _, s in points],
                    marker="o",
                    capsize=3,
                    linestyle=PERCENTILE_STYLES[pct],
                    color=DIR_COLOURS.get(ddir),
                    label=f"{_series_label(table, ddir)} p{pct:g}",
                )
    _label_axis(ax, table)
    latency_log_axis(ax, "y", scale)
    ax.set_ylabel("latency (log scale)")
    ax.legend(fontsize="small", ncols=2)
    return fig


def latency_throughput(table: NotebookTable) -> Figure | None:
    """Mean and p99 latency against MB/s (file operations: against operations per second), one point per
    swept value: where more load stops paying."""
    rate_key, rate_scale, rate_axis = (
        ("iops", 1.0, OPS_AXIS) if _table_operation(table) else ("bw_bytes", units.MB, BW_AXIS)
    )
    rows = _latency_rows(table, rate_key, rate_scale)
    if table.axis is None or len(rows) < 2:
        return None
    scale, _ = latency_scale([lat.mean for _, _, lat, _ in rows])
    fig, (ax,) = _figure(3.6)
    every = _every_point(rows, scale)
    for ddir in _directions(table):
        mine = [item for item in rows if item[0].ddir == ddir]
        _latency_series(ax, table, ddir, mine, scale)
        _swept_values(ax, table, mine, scale, every)
    ax.set_xlabel(rate_axis)
    latency_log_axis(ax, "y", scale)
    ax.set_ylabel("latency (log scale)")
    ax.set_xlim(left=0)
    if rate_key == "iops":
        _iops_ticks(ax, "x")
    ax.legend(fontsize="small")
    return fig


_LatencyRow = tuple[Row, float, Stability, Stability | None]


def _latency_rows(table: NotebookTable, rate_key: str, rate_scale: float) -> list[_LatencyRow]:
    """Each row with the summaries drawn from it: (row, rate, mean latency, p99); rows lacking a rate or
    mean latency are left out."""
    return [
        (row, rate.mean / rate_scale, lat, row.numbers.get("lat_p99_ns"))
        for row in table.rows
        if (rate := row.numbers.get(rate_key)) and (lat := row.numbers.get("lat_mean_ns"))
    ]


def _every_point(rows: list[_LatencyRow], scale: float) -> tuple[list[float], list[float]]:
    """Every x and y drawn (means and p99s), which labels keep clear of."""
    every_y = [lat.mean / scale for _, _, lat, _ in rows] + [p.mean / scale for _, _, _, p in rows if p]
    return [x for _, x, _, _ in rows], every_y


def _swept_values(
    ax: Axes, table: NotebookTable, mine: list[_LatencyRow], scale: float, every: tuple[list[float], list[float]]
) -> None:
    """Each mean-latency point labelled with its swept value, placed clear of every other point."""
    for row, x, lat, _ in mine:
        y = lat.mean / scale
        ax.annotate(f"{table.axis}={row.cells[0]}", (x, y), fontsize="x-small", **beside(x, y, *every, log_y=True))


def _latency_series(ax: Axes, table: NotebookTable, ddir: str | None, mine: list[_LatencyRow], scale: float) -> None:
    """One direction's mean latency line, and its p99 line (dashed) where rows have one."""
    colour = DIR_COLOURS.get(ddir)
    label = _series_label(table, ddir)
    xs = [x for _, x, _, _ in mine]
    ax.plot(xs, [lat.mean / scale for _, _, lat, _ in mine], marker="o", color=colour, label=f"{label} mean")
    p99 = [(x, p.mean / scale) for _, x, _, p in mine if p]
    if p99:
        ax.plot(
            [x for x, _ in p99], [v for _, v in p99], marker="s", linestyle="--", color=colour, label=f"{label} p99"
        )


def _row_label(row: Row, table: NotebookTable) -> str:
    """An overview row's workload name, and its file operation or, when the table has a dir column, its
    direction."""
    keys = [column.key for column in table.columns]
    kind = operation(row) or (row.cells[keys.index("ddir")] if "ddir" in keys else None)
    return row.cells[0] + (f" ({kind})" if kind and kind != row.cells[0] else "")


IOPS_TICKS = 4  # at most this many steps along an IOPS axis: "125.0k" is as wide as a half-width panel's step


def _iops_ticks(ax: Axes, axis: str) -> None:
    """IOPS tick labels as the tables write them (84.0k, 1.20M), and few enough of them that they do not run
    into each other: matplotlib places ticks for its own short numbers, and a one-bar panel's axis ticked
    every 25k wrote "100.0k" over "125.0k"."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    target = getattr(ax, f"{axis}axis")
    target.set_major_locator(MaxNLocator(nbins=IOPS_TICKS, steps=[1, 2, 2.5, 5, 10]))
    target.set_major_formatter(FuncFormatter(lambda value, _: units.iops(value)))


def workload_bars(table: NotebookTable) -> Figure | None:
    """MB/s and IOPS per workload of a table without a sweep, error bars = stddev of repeats. A file
    operation has a rate and no MB/s: its row has no MB/s bar, and a table of them only the rate."""
    rows = [row for row in table.rows if row.numbers.get("bw_bytes") or row.numbers.get("iops")]
    if not rows:
        return None
    labels = [_row_label(row, table) for row in rows]
    panels = _bar_panels(rows)
    fig, axes = _figure(1.0 + 0.35 * len(rows), columns=len(panels))
    positions = range(len(rows))
    colours = [DIR_COLOURS.get(row.ddir, DIR_COLOURS[None]) for row in rows]
    for ax, (key, scale, xlabel) in zip(axes, panels, strict=True):
        stats = [None if key == "bw_bytes" and operation(row) else row.numbers.get(key) for row in rows]
        _bars(ax, stats, scale, colours)
        ax.set_yticks(positions, labels if ax is axes[0] else [""] * len(rows), fontsize="small")
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)
    _iops_ticks(axes[-1], "x")
    return fig


def _bars(ax: Axes, stats: list[Stability | None], scale: float, colours: list[str]) -> None:
    """Horizontal bars of the means, whiskers one stddev of the repeats; a missing figure draws no bar."""
    ax.barh(
        range(len(stats)),
        [s.mean / scale if s else 0.0 for s in stats],
        xerr=[(s.stddev or 0.0) / scale if s else 0.0 for s in stats],
        capsize=3,
        color=colours,
    )


def _bar_panels(rows: list[Row]) -> list[tuple[str, float, str]]:
    """(figure key, scale, axis label) of each panel: MB/s and IOPS, or only the rate for file operations."""
    if all(operation(row) for row in rows):
        return [("iops", 1.0, OPS_AXIS)]
    some_operations = any(operation(row) for row in rows)
    iops_axis = "IOPS (I/O, or file operations, per second)" if some_operations else IOPS_AXIS
    return [("bw_bytes", float(units.MB), BW_AXIS), ("iops", 1.0, iops_axis)]


def timeline_chart(timeline: Timeline) -> Figure | None:
    """Per-second MB/s of fio's job sum and each device on the run's clock; dips shaded and labelled, and
    each point's band named along the top. Every label is placed by `chart_labels`: the names stand on end
    in room measured for the longest (every k-th when they stand closer than their own height, and the axis
    says so), and dip labels are dealt into rows so none is written over another or runs off the chart."""
    if timeline.empty:
        return None
    from matplotlib.figure import Figure

    names = list(timeline.series)
    # the point names stand on end above the first panel: room for the longest one, as drawn
    names_in = max((text_inches(span.label, TIMELINE_LABEL_PT)[0] for span in timeline.points), default=0.0)
    fig = Figure(figsize=(WIDTH_IN, 0.6 + names_in + 1.5 * len(names)), layout="constrained")
    axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)[:, 0]
    for ax, name in zip(axes, names, strict=True):
        _timeline_panel(ax, timeline, name, "#333333" if ax is axes[0] else "#1f77b4")
    xlabel = "seconds since the run started (points alternate shading); MB/s = 10^6 bytes/s"
    top = axes[0].secondary_xaxis("top") if timeline.points else None
    if top is not None:
        _name_points(top, timeline.points)
    axes[-1].set_xlabel(xlabel)
    fig.draw_without_rendering()  # the layout is settled: what follows is placed in its inches
    if top is not None:
        _thin_names(top, axes, timeline, xlabel)
    for ax, name in zip(axes, names, strict=True):
        _label_dips(ax, timeline.dips.get(name, []))
    return fig


def _timeline_panel(ax: Axes, timeline: Timeline, name: str, colour: str) -> None:
    """One series' panel: its MB/s each second, every other point's band shaded, its dips shaded red."""
    times, values = timeline.series[name]
    ax.plot(times, [v / units.MB for v in values], linewidth=1.0, marker=".", markersize=4, color=colour)
    for span in timeline.points[1::2]:
        ax.axvspan(span.start_s, span.end_s, color="#000000", alpha=0.04, linewidth=0)
    for dip in timeline.dips.get(name, []):
        ax.axvspan(dip.start_s, dip.end_s, color=MARK_COLOUR, alpha=0.25, linewidth=0)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("MB/s", fontsize="small")
    ax.set_title(name, loc="left", fontsize="small")
    ax.grid(True, alpha=0.3)


def _thin_names(top: Axes, axes: Any, timeline: Timeline, xlabel: str) -> None:
    """Name every k-th point when the names would stand closer than their own height, and say so."""
    step = every([_inches_along(axes[0], (s.start_s + s.end_s) / 2) for s in timeline.points], _name_height())
    if step > 1:
        _name_points(top, timeline.points[::step])
        axes[-1].set_xlabel(f"{xlabel}; every {ordinal(step)} point named")


TIMELINE_LABEL_PT = 6.94  # matplotlib's x-small at its default 10 pt
DIP_LABEL_PAD_PT = 2.0


def _name_points(top: Axes, named: Sequence[Span]) -> None:
    """Each of `named` written on end above the middle of its band."""
    top.set_xticks(
        [(span.start_s + span.end_s) / 2 for span in named],
        [span.label for span in named],
        rotation=90,
        fontsize=TIMELINE_LABEL_PT,
    )


def _name_height() -> float:
    """The width a name standing on end takes across the axis: its line's height, in inches."""
    return text_inches("Ag", TIMELINE_LABEL_PT)[1]


def _inches_along(ax: Axes, x: float) -> float:
    """Where data position `x` lies across `ax`, in inches from its left edge."""
    low, high = ax.get_xlim()
    width_in = ax.get_position().width * ax.get_figure().get_figwidth()  # type: ignore[union-attr]
    return (x - low) / (high - low) * width_in if high > low else 0.0


def _label_dips(ax: Axes, dips: Sequence[Span]) -> None:
    """Each dip's label along the bottom of `ax`, from the dip's start (moved left where it would run past
    the right edge), in the lowest row where it clears the label before it."""
    if not dips:
        return
    low, high = ax.get_xlim()
    width_in = ax.get_position().width * ax.get_figure().get_figwidth()  # type: ignore[union-attr]
    per_inch = (high - low) / width_in if width_in > 0 else 0.0
    pad_in = DIP_LABEL_PAD_PT / 72.0
    spans = []
    for dip in dips:
        label_in = text_inches(dip.label, TIMELINE_LABEL_PT)[0] + pad_in
        start_in = min(max(0.0, (dip.start_s - low) / per_inch if per_inch else 0.0), max(0.0, width_in - label_in))
        spans.append((start_in, label_in))
    row_pt = text_inches("Ag", TIMELINE_LABEL_PT)[1] * 72.0 * 1.1
    for dip, (start_in, _), row in zip(dips, spans, rows(spans, gap=pad_in), strict=True):
        ax.annotate(
            dip.label,
            (low + start_in * per_inch, 0),
            xycoords=("data", "axes fraction"),
            xytext=(DIP_LABEL_PAD_PT, DIP_LABEL_PAD_PT + row * row_pt),
            textcoords="offset points",
            fontsize=TIMELINE_LABEL_PT,
            color=MARK_COLOUR,
            in_layout=False,
        )


def device_bars(figures: ArrayFigures) -> Figure | None:
    """Each device's MB/s together (in the array) and alone; outliers outlined and labelled."""
    view, reports = figures.view, figures.reports
    devices = sorted(set(view.together) | set(view.alone), key=natural_key)
    if not devices:
        return None
    crowded = _crowded(devices)  # names stand on end under the bars: room for the longest one
    fig, (ax,) = _figure(3.4 + (POINT_NAME_IN_PER_CHAR * max(map(len, devices)) if crowded else 0.0))
    modes = [mode for mode in ("together", "alone") if getattr(view, mode)]
    width = 0.8 / len(modes)
    for m, mode in enumerate(modes):
        offset = (m - (len(modes) - 1) / 2) * width
        _mode_bars(
            ax, getattr(view, mode), reports.get(mode), devices, (offset, width), mode, ("#1f77b4", "#ff7f0e")[m]
        )
    ax.set_xticks(range(len(devices)), devices, rotation=90 if crowded else 0)
    ax.set_ylabel(BW_AXIS)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small")
    return fig


def _mode_bars(
    ax: Axes,
    values: dict[str, float],
    report: OutlierReport | None,
    devices: list[str],
    place: tuple[float, float],
    mode: str,
    colour: str,
) -> None:
    """One mode's bars (together or alone), its outliers marked, its median drawn when it was judged."""
    offset, width = place
    outliers = {s.device for s in report.outliers} if report is not None else set()
    heights = [values.get(d, 0.0) / units.MB for d in devices]
    bars = ax.bar([i + offset for i in range(len(devices))], heights, width, label=mode, color=colour)
    _mark_outliers(ax, [bar for bar, device in zip(bars, devices, strict=True) if device in outliers])
    if report is not None and report.evaluated and report.median:
        ax.axhline(report.median / units.MB, color=colour, linestyle=":", linewidth=1, label=f"median {mode}")


def _mark_outliers(ax: Axes, bars: list[Any]) -> None:
    """Outline each outlier's bar and write "outlier" above it."""
    for bar in bars:
        bar.set_edgecolor(MARK_COLOUR)
        bar.set_linewidth(2.5)
        ax.annotate(
            "outlier",
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            ha="center",
            xytext=(0, 3),
            textcoords="offset points",
            color=MARK_COLOUR,
            fontsize="small",
        )


def _crowded(labels: Sequence[str]) -> bool:
    """Whether category labels side by side would run into each other across the chart's width."""
    return len(labels) * (max(map(len, labels), default=0) + 2) * POINT_NAME_IN_PER_CHAR > WIDTH_IN - 1.5


def scaling_chart(report: ScalingReport) -> Figure | None:
    """Aggregate MB/s against the number of devices, with the ideal (the same devices alone, summed) and efficiency."""
    best: dict[int, float] = {}
    ideal: dict[int, float] = {}
    efficiency: dict[int, float] = {}
    for row in report.rows:
        if row.aggregate > best.get(row.n, -math.inf):
            best[row.n], ideal[row.n], efficiency[row.n] = row.aggregate, row.ideal, row.efficiency
    if len(best) < 2:
        return None
    ns = sorted(best)
    fig, (ax,) = _figure(3.4)
    ax.plot(
        ns,
        [ideal[n] / units.MB for n in ns],
        linestyle="--",
        color="#7f7f7f",
        label="ideal: the same devices alone, summed",
    )
    ax.plot(ns, [best[n] / units.MB for n in ns], marker="o", color="#1f77b4", label="measured aggregate (best set)")
    if len(report.rows) > len(ns):  # several sets of one size (leave-one-out, sets by name): each one a dot
        ax.plot(
            [row.n for row in report.rows],
            [row.aggregate / units.MB for row in report.rows],
            marker=".",
            linestyle="none",
            color="#7f7f7f",
            label="each set",
        )
    for n in ns:
        ax.annotate(
            units.percent(100 * efficiency[n]),
            (n, best[n] / units.MB),
            fontsize="x-small",
            **beside(n, best[n] / units.MB, ns, [best[k] / units.MB for k in ns]),
        )
    for drop in report.drops:
        n = len(drop.larger)
        ax.plot(
            [n],
            [drop.larger_aggregate / units.MB],
            marker="x",
            markersize=12,
            color=MARK_COLOUR,
            linestyle="none",
            label=f"slower than {units.counted(len(drop.smaller), 'device')} (-{drop.drop:.0%})",
        )
    ax.set_xticks(ns)
    ax.set_xlabel("devices run together (labels: scaling efficiency)")
    ax.set_ylabel(BW_AXIS)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small")
    return fig
