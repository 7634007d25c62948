"""Charts across runs: a series over time with its health, and two sides compared.

Kept apart from `charts` (one run's figures) because they read the
history and comparison structures, not a run's tables. Same conventions:
matplotlib's object API (no pyplot state), MB/s = 10^6 bytes/s, latency in
the unit that fits, a figure or None when there is nothing to draw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from iolab.analysis.history import HealthPoint
from iolab.models import units
from iolab.models.workload import METRIC_LABELS
from iolab.report.charts import BW_AXIS, IOPS_AXIS, MARK_COLOUR, WIDTH_IN, latency_scale

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from iolab.analysis.compare import Verdict
    from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples
    from iolab.views.history import SeriesHistory

SIDE_COLOURS = ("#7f7f7f", "#1f77b4")
NOTEBOOK_COLOUR = "#6a3d9a"
# A note's label on the chart: cut to this many characters (the page's facts hold it whole), and stacked
# on this many rows (axes fractions) so neighbouring notes do not print over one another.
NOTE_CHARS = 40
NOTE_ROWS = (0.62, 0.50, 0.38, 0.26)
VERDICT_COLOURS = {"faster": "#2ca02c", "slower": MARK_COLOUR}


def metric_scale(metric: str, values: Sequence[float]) -> tuple[float, str]:
    """Divisor and axis label for a primary metric ("bw", "iops" or "lat_mean")."""
    if metric == "bw":
        return units.MB, BW_AXIS
    if metric == "lat_mean":
        scale, unit = latency_scale([v for v in values if v and not math.isnan(v)])
        return scale, f"mean latency ({unit})"
    return 1.0, IOPS_AXIS


def history_chart(history: SeriesHistory, health: Sequence[HealthPoint]) -> Figure | None:
    """The series (one dot per run, failed runs marked) with its rolling mean, change points annotated;
    below it the rolling COV against its target, shaded where the window had too few runs to judge."""
    series = history.series
    if len(series.values) < 2:
        return None
    from matplotlib.figure import Figure

    scale, label = metric_scale(series.metric, series.values)
    when = [datetime.fromtimestamp(t, tz=UTC) for t in series.times]
    fig = Figure(figsize=(WIDTH_IN, 4.2), layout="constrained")
    value_ax, cov_ax = fig.subplots(2, 1, sharex=True, height_ratios=(2.2, 1))
    value_ax.plot(
        when,
        [v / scale for v in series.values],
        linestyle="none",
        marker=".",
        markersize=5,
        color="#1f77b4",
        label="run",
    )
    failed = [
        (w, v / scale) for w, v, f in zip(when, series.values, series.failed, strict=True) if f and not math.isnan(v)
    ]
    if failed:
        value_ax.plot(
            *zip(*failed, strict=True), linestyle="none", marker="x", color=MARK_COLOUR, label="a repeat failed"
        )
    if history.outliers:
        value_ax.plot(
            [datetime.fromtimestamp(o.time, tz=UTC) for o in history.outliers],
            [o.value / scale for o in history.outliers],
            linestyle="none",
            marker="o",
            markersize=8,
            markerfacecolor="none",
            color=MARK_COLOUR,
            label="outlier run",
        )
    means = [(datetime.fromtimestamp(h.time, tz=UTC), h.mean / scale) for h in health if h.mean is not None]
    if means:
        value_ax.plot(*zip(*means, strict=True), color="#333333", linewidth=1.2, label="rolling mean")
    _change_marks(history, value_ax)
    _unplaced_spans(history, value_ax)
    _notebook_marks(history, value_ax, cov_ax)
    value_ax.set_ylabel(label, fontsize="small")
    value_ax.set_ylim(bottom=0)
    value_ax.legend(fontsize="x-small", loc="lower left")
    _cov_panel(history, health, cov_ax)
    cov_ax.set_ylabel("rolling COV (%)", fontsize="small")
    cov_ax.set_ylim(bottom=0)
    cov_ax.set_xlabel("run time (UTC)")
    for ax in (value_ax, cov_ax):
        ax.grid(True, alpha=0.3)
    fig.autofmt_xdate()
    return fig


def _rolling_cov(health: Sequence[HealthPoint], cov_ax: Axes) -> None:
    """The rolling COV, where the window was judged."""
    judged = [(datetime.fromtimestamp(h.time, tz=UTC), 100 * h.cov) for h in health if h.cov is not None]
    if judged:
        cov_ax.plot(*zip(*judged, strict=True), color="#333333", linewidth=1.2)


def _daily_cov(history: SeriesHistory, cov_ax: Axes) -> list[tuple[datetime, float]]:
    """Each day's COV as a short bar; returns the days drawn."""
    days = [(datetime.fromtimestamp(d.time, tz=UTC), 100 * d.cov) for d in history.days if d.cov is not None]
    if days:
        cov_ax.plot(
            *zip(*days, strict=True),
            linestyle="none",
            marker="_",
            markersize=10,
            markeredgewidth=2,
            color="#1f77b4",
            label="per-day COV",
        )
    return days


def _cov_panel(history: SeriesHistory, health: Sequence[HealthPoint], cov_ax: Axes) -> None:
    """The rolling COV against its target, each day's COV, and shading where the window had too few runs."""
    _rolling_cov(health, cov_ax)
    target = health[-1].params.cov_target * 100 if health else None
    if target is not None:
        cov_ax.axhline(target, color=MARK_COLOUR, linestyle=":", linewidth=1.2, label=f"target {target:.0f}%")
    days = _daily_cov(history, cov_ax)
    if target is not None or days:
        cov_ax.legend(fontsize="x-small", loc="upper left")
    from matplotlib.dates import date2num

    for h in (h for h in health if h.state == "insufficient"):
        at = float(date2num(datetime.fromtimestamp(h.time, tz=UTC)))  # the axis's dates as numbers
        cov_ax.axvline(at, color="#000000", alpha=0.05, linewidth=3)


def _change_marks(history: SeriesHistory, value_ax: Axes) -> None:
    """Each change point: a dashed line at its run, and how much the mean moved there."""
    from matplotlib.dates import date2num

    for change in history.changes:
        at = float(date2num(datetime.fromtimestamp(change.time, tz=UTC)))  # the axis's dates as numbers
        value_ax.axvline(at, color=MARK_COLOUR, linestyle="--", linewidth=1)
        shift = change.point.relative_change
        text = f"{shift:+.0%} at run {change.run_at}" if shift is not None else f"change at run {change.run_at}"
        value_ax.annotate(
            text,
            (at, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -12),
            textcoords="offset points",
            fontsize="small",
            color=MARK_COLOUR,
        )


def _unplaced_spans(history: SeriesHistory, value_ax: Axes) -> None:
    """Each level change whose run cannot be told closer: its span of runs shaded, and how much the mean moved."""
    from matplotlib.dates import date2num

    for change in history.unplaced:
        start, end = (float(date2num(datetime.fromtimestamp(t, tz=UTC))) for t in (change.time_first, change.time_last))
        value_ax.axvspan(start, end, color=MARK_COLOUR, alpha=0.12, linewidth=0)
        shift = change.point.relative_change
        size = "level change" if shift is None else f"{shift:+.0%}"
        value_ax.annotate(
            f"{size} in runs {change.run_first}-{change.run_last}",
            (start, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -24),
            textcoords="offset points",
            fontsize="small",
            color=MARK_COLOUR,
        )


def _notebook_marks(history: SeriesHistory, value_ax: Axes, cov_ax: Axes) -> None:
    """Each tag and note of the series at its run's time: a line through both axes (a shaded span when it
    covers several runs) and its text on the value axis, to the line's right in the left half of the time
    range and to its left in the right half, so the text stays inside the chart."""
    if not history.notebook:
        return
    from matplotlib.dates import date2num

    times = history.series.times
    middle = (times[0] + times[-1]) / 2
    for number, entry in enumerate(history.notebook):
        start = float(date2num(datetime.fromtimestamp(entry.time, tz=UTC)))
        for ax in (value_ax, cov_ax):
            ax.axvline(start, color=NOTEBOOK_COLOUR, linestyle="-.", linewidth=1, alpha=0.8)
            if entry.last_time > entry.time:
                end = float(date2num(datetime.fromtimestamp(entry.last_time, tz=UTC)))
                ax.axvspan(start, end, color=NOTEBOOK_COLOUR, alpha=0.06)
        text = entry.text if len(entry.text) <= NOTE_CHARS else entry.text[: NOTE_CHARS - 1] + "…"
        right = entry.time <= middle
        value_ax.annotate(
            f"{'#' if entry.kind == 'tag' else ''}{text} (run {entry.first_run})",
            (start, NOTE_ROWS[number % len(NOTE_ROWS)]),
            xycoords=("data", "axes fraction"),
            xytext=(3 if right else -3, 0),
            textcoords="offset points",
            ha="left" if right else "right",
            va="center",
            fontsize="x-small",
            color=NOTEBOOK_COLOUR,
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
        )


def _side_bars(
    ax: Axes, i: int, sides: tuple[WorkloadSamples, WorkloadSamples], unit: float, names: tuple[str | None, str | None]
) -> None:
    """A workload's two bars (A above B): the figure the verdict table shows, whiskers to the lowest and
    highest repeat."""
    for j, side in enumerate(sides):
        middle = side.figure or 0.0
        ax.barh(
            i + (j - 0.5) * 0.38,
            middle / unit,
            height=0.36,
            xerr=[[(middle - min(side.values)) / unit], [(max(side.values) - middle) / unit]],
            capsize=3,
            color=SIDE_COLOURS[j],
            label=names[j],
        )


def _verdict_label(ax: Axes, i: int, verdict: Verdict) -> None:
    """The verdict and its change written right of the chart, coloured by verdict."""
    change = f" {verdict.change:+.1%}" if verdict.change is not None else ""
    ax.annotate(
        f"{verdict.kind}{change}",
        (1.0, i),
        xycoords=("axes fraction", "data"),
        xytext=(4, 0),
        textcoords="offset points",
        va="center",
        fontsize="small",
        color=VERDICT_COLOURS.get(verdict.kind, "#555555"),
        annotation_clip=False,
    )


def _both_sides(row: ComparedWorkload) -> bool:
    """A workload with repeats on both sides: the others have no pair of bars to draw."""
    return bool(row.a.values and row.b.values)


def _rows_scale(rows: list[ComparedWorkload]) -> tuple[float, str]:
    """The scale and axis title for the first workload's metric, fitted to every repeat drawn."""
    return metric_scale(rows[0].a.metric, [v for r in rows for v in r.a.values + r.b.values])


def _workload_axis(ax: Axes, rows: list[ComparedWorkload], mixed: bool, axis_label: str) -> None:
    """Workload names down the side (with their metric when metrics are mixed), and the axis's title."""
    labels = [f"{r.a.name} ({METRIC_LABELS.get(r.a.metric, r.a.metric)})" if mixed else r.a.name for r in rows]
    ax.set_yticks(range(len(rows)), labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel(axis_label + "; bars: geometric mean of the repeats, whiskers: lowest to highest")


def comparison_chart(comparison: Comparison) -> Figure | None:
    """Per workload, the geometric mean of each side's repeats side by side (the figure of the verdict table),
    whiskers from its lowest to its highest repeat, and the verdict beside the pair. Workloads judged on
    different metrics (bandwidth, IOPS, latency) share one axis as a percentage of side A's figure."""
    rows = [row for row in comparison.rows if _both_sides(row)]
    if not rows:
        return None
    from matplotlib.figure import Figure

    mixed = len({row.a.metric for row in rows}) > 1
    scale, axis_label = _rows_scale(rows)
    fig = Figure(figsize=(WIDTH_IN, 1.0 + 0.55 * len(rows)), layout="constrained")
    ax = fig.subplots()
    for i, row in enumerate(rows):
        unit = (row.a.figure or 1.0) / 100 if mixed else scale
        names = (comparison.label_a, comparison.label_b) if i == 0 else (None, None)
        _side_bars(ax, i, (row.a, row.b), unit, names)
        _verdict_label(ax, i, row.verdict)
    _workload_axis(ax, rows, mixed, f"% of {comparison.label_a}'s geometric mean" if mixed else axis_label)
    ax.legend(fontsize="x-small", loc="lower right")
    ax.grid(True, axis="x", alpha=0.3)
    return fig
