"""Pages of the HTML file that look across runs: a workload's history, and B against A.

Each builder returns a `Page` (or None when there is nothing to show), in
the shape `render_html(extra=...)` takes, so `iolab report`, `iolab
history --html` and `iolab compare --html` share one renderer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from iolab.models.units import metric_value
from iolab.report.cross_charts import comparison_chart, history_chart
from iolab.report.html import ChartOutput, Page, PageBuilder, Section, present_charts
from iolab.report.wording import (
    HEADERS,
    change_line,
    change_points_notes,
    comparison_notes,
    daily_line,
    health_line,
    notebook_line,
    older_line,
    outlier_runs_line,
    series_title,
    unplaced_line,
    verdict_cells,
)
from iolab.views.comparison import Comparison
from iolab.views.history import NOT_MEASURED, AcrossRuns, SeriesHistory
from iolab.views.tables import Column, NotebookTable, Row

if TYPE_CHECKING:
    pass


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "series"


def history_page(histories: Sequence[SeriesHistory], output: ChartOutput) -> Page | None:
    """One section per series: latest value and health, the chart, and each change point with its cause."""
    sections = []
    for number, history in enumerate(histories, start=1):
        s, hp = history.series, history.health
        if hp is None or len(s.values) < 2:
            continue
        health = history.rolling()
        base = f"history{number}-{_slug(s.name)}"
        latest = s.values[-1]
        facts = [
            ("latest", f"{metric_value(s.metric, None if math.isnan(latest) else latest)} (run {s.run_ids[-1]})"),
            ("health", health_line(hp, s.metric)),
        ]
        older = older_line(s)
        if older:
            facts.append(("older runs", older))
        if history.failed_runs:
            facts.append(("failed runs", f"{history.failed_runs} ({NOT_MEASURED})"))
        facts += [("change", change_line(c)) for c in history.changes]
        facts += [("level change", unplaced_line(c)) for c in history.unplaced]
        facts += [("change points", note) for note in change_points_notes(history.judged, history.found)]
        if history.outliers:
            facts.append(("outlier runs", outlier_runs_line(history.outliers, s.metric)))
        if history.days:
            facts.append(("per-day COV", daily_line(history.days, hp.params.cov_target)))
        facts += [(entry.kind, notebook_line(entry)) for entry in history.notebook]
        chart = output.make(
            f"{base}-series",
            f"{s.name}: every run, rolling mean and COV",
            history_chart(history, health),
            "Dashed lines: change points (the first run of a new level); shaded spans: a level change whose run"
            " cannot be told closer; open circles: outlier runs; dash-dot lines: tags (#) and notes on runs; "
            "dotted: the COV target; short bars: the COV of each day.",
        )
        sections.append(Section(base, series_title(s), "history", facts=tuple(facts), charts=present_charts(chart)))
    return Page("history", "History", tuple(sections)) if sections else None


def comparison_page(comparison: Comparison, output: ChartOutput, anchor: str = "comparison") -> Page | None:
    """The verdict table, the side-by-side bars of the medians with their ranges, and what differs on the host."""
    if not comparison.rows:
        return None
    columns = tuple(Column(_slug(h), h, numeric=h not in ("workload", "metric", "verdict")) for h in HEADERS)
    rows = tuple(
        Row(
            cells=verdict_cells(row),
            numbers={},
            ddir=None,
            ok=len(row.b.values),
            point_ids=(),
        )
        for row in comparison.rows
    )
    table = NotebookTable(title="verdicts", axis=None, fixed=(), columns=columns, rows=rows)
    chart = output.make(
        f"{anchor}-bars",
        f"{comparison.label_b} against {comparison.label_a}",
        comparison_chart(comparison),
        "Bars: the geometric mean of each side's repeats (lone outlier repeats left out, as the verdict), as in "
        "the table; whiskers: its lowest to highest repeat. "
        "A verdict rests on the confidence interval of the change (the table), not on the bars.",
    )
    title = f"B = {comparison.label_b} against A = {comparison.label_a}"
    section = Section(
        f"{anchor}-verdicts",
        title,
        "comparison",
        subtitle=f"A: runs {', '.join(map(str, comparison.runs_a))}; B: runs {', '.join(map(str, comparison.runs_b))}",
        subtitle_label="Runs",
        table=table,
        charts=present_charts(chart),
        notes=tuple(comparison_notes(comparison)),
    )
    return Page(anchor, f"Comparison: {comparison.label_b} against {comparison.label_a}", (section,))


def pages_for_runs(across: AcrossRuns) -> list[PageBuilder]:
    """What `iolab report RUN...` adds after the runs: the history of their workloads, and each comparison
    of two of them (`iolab.views.history.across_runs`)."""
    builders: list[PageBuilder] = []
    if across.histories:
        builders.append(partial(history_page, across.histories))
    for comparison in across.comparisons:
        a, b = comparison.runs_a[0], comparison.runs_b[0]
        # partial binds this pair's comparison now (a closure would see the loop's last one); mypy can type it
        builders.append(partial(comparison_page, comparison, anchor=f"comparison-{a}-{b}"))
    return builders
