"""Rich tables and live progress for the terminal."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Console, JustifyMethod
from rich.table import Table

from iolab.models import Point, PointRecord, Result, Run, units
from iolab.models.array_names import natural_key
from iolab.models.host_settings import SETTINGS
from iolab.models.units import counted, metric_value
from iolab.report.wording import (
    HEADERS,
    change_line,
    comparison_notes,
    daily_line,
    health_line,
    notebook_line,
    older_line,
    outlier_runs_line,
    series_title,
    side_text,
    verdict_cells,
    when,
)
from iolab.views.comparison import Comparison
from iolab.views.headline import headline_line
from iolab.views.history import SeriesHistory
from iolab.views.side_columns import column_values, side_columns
from iolab.views.tables import UNITS_NOTE, RunReport, steady_text, stop_text

if TYPE_CHECKING:
    from iolab.analysis.scaling import ScalingRow
    from iolab.models.material import HostRow

# Columns of a table written to a pipe or file: wide enough that no cell is cut or wrapped ("equival…").
PLAIN_WIDTH = 200


def stdout_console() -> Console:
    """The console for a command's output: the terminal's width on a terminal; on a pipe or in a file,
    rows on one line each and no colour codes, so `| grep`, `| less` and saved files read whole."""
    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(width=PLAIN_WIDTH, color_system=None, highlight=False)


CAPTION = "MB/s = 10^6 bytes/s · latency = submission + completion (clat where only that was reported) · CPU = usr+sys, 100% = one core"


def _workload(point: Point) -> str:
    """rw and bs as the workload wrote them, its queue depth, and its jobs where more than one; for a file
    operation, what it does, its threads and files."""
    job = point.job
    if job.operation is not None:
        threads = f"{job.numjobs} thread{'s' if job.numjobs > 1 else ''}"
        return f"file {job.operation}, {threads}, {job.get('nrfiles', '1')} files each"
    shape = f"{job.get('rw', '?')} {job.get('bs', '')} QD{job.iodepth}"
    return shape + (f"×{job.numjobs}" if job.numjobs != 1 else "")


def results_table(records: list[PointRecord], title: str | None = None) -> Table:
    """One row per point and direction: throughput, IOPS, latency mean and p99, CPU, and the side figures
    some point has (`views.side_columns`) on each point's first row."""
    targets = {r.point.target for r in records}
    # Array points name their devices already; a long group description would only squeeze the table.
    show_target = len(targets) > 1 and not any(t.kind == "group" for t in targets)
    show_repeat = any(r.point.repeat for r in records)
    settings = [name for name in SETTINGS if any(name in r.point.host_settings for r in records)]
    stopped = any(r.result is not None and r.result.stopping is not None for r in records)
    caption = CAPTION
    if any(r.point.job.is_metadata for r in records):
        caption += " · file create/stat/remove: operations per second under IOPS"
    table = Table(title=title, caption=caption, caption_justify="left")
    if show_target:
        table.add_column("Target", overflow="fold")
    table.add_column("Point", no_wrap=True)
    if show_repeat:
        table.add_column("Rep", justify="right")
    for name in settings:  # a plan's [host] settings, one column each
        table.add_column(name, no_wrap=True)
    table.add_column("Dir", no_wrap=True)
    for name in ("MB/s", "IOPS", "Mean lat", "p99 lat", "CPU"):
        table.add_column(name, justify="right", no_wrap=True)
    steady = any(r.result is not None and r.result.steady is not None for r in records)
    if steady:  # fio judged steady state (ss=): whether and when it held, and so how long fio ran
        table.add_column("Steady state (ss=)")
    if stopped:  # --stop-when-known: why each point ended and how well its rate is known
        table.add_column("Stopped")
    side = side_columns(records)
    for column in side:
        table.add_column(column.header, justify="right", no_wrap=True)
    for record in records:
        lead = ([record.point.target.path] if show_target else []) + [record.point.name]
        lead += [str(record.point.repeat + 1)] if show_repeat else []
        lead += [record.point.host_settings.get(name, "-") for name in settings]
        result = record.result
        if result is None or not result.directions:
            status = record.error or record.status
            style = "red" if record.status == "failed" else "dim"
            table.add_row(*lead, f"[{style}]{status}[/{style}]", *[""] * (5 + steady + stopped + len(side)))
            continue
        side_cells = []
        for column in side:
            values, problem = column_values(column, [record])
            side_cells.append(column.fmt(values[0]) if values else problem if column.is_command and problem else "-")
        operation = record.point.job.operation  # a file operation moves no data: its ops/s in the IOPS column
        tool = record.point.job.tool  # another tool's figures: only those it measured
        for i, d in enumerate(result.directions.values()):
            lat = d.latency
            no_data = operation or (tool and not d.bw_bytes and not d.io_bytes)
            table.add_row(
                *(lead if i == 0 else [""] * len(lead)),
                operation or d.ddir,
                "-" if no_data else units.mb_per_s(d.bw_bytes),
                units.iops(d.iops),
                units.latency(lat.mean_ns if lat else None),
                units.latency(lat.percentiles.get(99.0) if lat else None),
                ("-" if tool else units.percent(result.cpu)) if i == 0 else "",
                *([_steady_cell(result) if i == 0 else ""] if steady else []),
                *([stop_text(result.stopping) if result.stopping and i == 0 else ""] if stopped else []),
                *(side_cells if i == 0 else [""] * len(side)),
            )
    return table


def _steady_cell(result: Result) -> str:
    """fio's steady-state verdict and how long it let the job run, or '-' for a job without ss=."""
    if result.steady is None:
        return "-"
    return f"{steady_text(result.steady)}, ran {units.elapsed_ms(result.steady.runtime_ms)}"


def runs_table(runs: list[Run], tags: dict[int, list[str]] | None = None) -> Table:
    """The runs, one row each; a Tags column when `tags` (run id -> tags) is given."""
    table = Table(title="iolab runs")
    columns: list[tuple[str, JustifyMethod]] = [
        ("Run", "right"),
        ("Started", "left"),
        ("Label", "left"),
        ("Targets", "left"),
        ("Points", "right"),
        ("Status", "left"),
    ]
    if tags is not None:
        columns.append(("Tags", "left"))
    for name, justify in columns:
        table.add_column(name, justify=justify)
    colours = {"complete": "green", "partial": "yellow", "failed": "red", "interrupted": "red", "running": "cyan"}
    for run in runs:
        points = f"{run.points_done}/{run.points_planned}"
        colour = colours.get(run.status, "white")
        cells = [
            str(run.id),
            time.strftime("%Y-%m-%d %H:%M", time.localtime(run.started_at)),
            run.label,
            ", ".join(run.targets),
            points,
            f"[{colour}]{run.status}[/{colour}]",
        ]
        if tags is not None:
            cells.append(", ".join(tags.get(run.id, [])))
        table.add_row(*cells)
    return table


class ConsoleProgress:
    """Prints a line as each point starts and finishes (to stderr, so --json stays clean)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.remaining = 0.0

    def run_started(self, run_id: int, points: list[Point], notes: list[str]) -> None:
        seconds = sum(p.expected_seconds for p in points)
        self.remaining = seconds
        planned = f": {len(points)} points, about {seconds:.0f} s of fio time" if points else ""
        self.console.print(f"[bold]Run {run_id}[/bold]{planned}")
        for note in notes:
            self.console.print(f"  [yellow]note:[/yellow] {note}")

    def phase(self, message: str) -> None:
        self.console.print(f"  {message} …")

    def point_started(self, index: int, total: int, point: Point) -> None:
        eta = f", about {units.duration(self.remaining)} left" if self.remaining > 0 else ""
        self.console.print(f"  [{index}/{total}] {point.name} ({_workload(point)}) on {point.target.path}{eta} …")
        self.remaining = max(0.0, self.remaining - point.expected_seconds)

    def point_finished(self, index: int, total: int, point: Point, result: Result | None, error: str) -> None:
        if error:
            self.console.print(f"  [{index}/{total}] [red]failed:[/red] {error}")
            return
        assert result is not None
        operation = point.job.operation
        parts = [
            f"{operation} {units.iops(d.iops)} ops/s"
            if operation is not None
            else f"{d.ddir} {units.mb_per_s(d.bw_bytes)} MB/s {units.iops(d.iops)} IOPS"
            for d in result.directions.values()
        ]
        self.console.print(f"  [{index}/{total}] [green]done[/green]: " + ", ".join(parts))


def device_table(workload: str, together: dict[str, float], alone: dict[str, float]) -> Table:
    """Per-device bandwidth of an array, run together and alone side by side."""
    table = Table(title=f"Per device · {workload}")
    for name in ("Device", "Together MB/s", "Alone MB/s"):
        table.add_column(name, justify="left" if name == "Device" else "right")
    for device in sorted(set(together) | set(alone), key=natural_key):
        cells = [units.mb_per_s(view[device]) if device in view else "-" for view in (together, alone)]
        table.add_row(device, *cells)
    return table


def hosts_table(records: Sequence[PointRecord], hosts: Mapping[int, Sequence[HostRow]]) -> Table:
    """Each host's share of each multi-host point: status, throughput, latency and when it was done."""
    table = Table(
        title="Per host",
        caption="runtime: when the host's jobs were done (first-done against last-done)",
        caption_justify="left",
    )
    for name in ("Point", "Host", "Status", "MB/s", "IOPS", "Mean lat", "p99 lat", "Runtime"):
        table.add_column(name, justify="left" if name in ("Point", "Host", "Status") else "right")
    for record in records:
        for row in hosts.get(record.id, []):
            status = row.status if row.status == "ok" else f"[red]{row.status}[/red]: {row.error}"
            table.add_row(
                record.point.name,
                row.host,
                status,
                units.mb_per_s(row.bw_bytes) if row.bw_bytes is not None else "-",
                units.iops(row.iops) if row.iops is not None else "-",
                units.latency(row.lat_mean_ns),
                units.latency(row.p99_ns),
                units.duration(row.runtime_ms / 1000) if row.runtime_ms else "-",
            )
    return table


def scaling_view(workload: str, rows: Sequence[ScalingRow], labels: Mapping[tuple[str, ...], str]) -> Table:
    """Aggregate bandwidth against device count, with efficiency against the same devices alone; `labels`
    name each set as its point does (x28, without-nvme3n1), so sets of one size can be told apart."""
    table = Table(
        title=f"Scaling · {workload}",
        caption="efficiency = aggregate / the same devices alone, summed",
        caption_justify="left",
    )
    for name in ("Devices", "Aggregate MB/s", "Ideal MB/s", "Efficiency", "Set"):
        table.add_column(name, justify="left" if name == "Set" else "right")
    for row in rows:
        table.add_row(
            str(row.n),
            units.mb_per_s(row.aggregate),
            units.mb_per_s(row.ideal),
            units.percent(row.efficiency * 100),
            labels.get(row.devices, ""),
        )
    return table


def print_comparison(comparison: Comparison, console: Console) -> None:
    """The verdict table, then the host differences and the workloads only one side has."""
    console.print(comparison_table(comparison))
    for line in comparison_notes(comparison):
        console.print(line, highlight=False, markup=False)


def comparison_table(comparison: Comparison) -> Table:
    """The verdicts as a Rich table; host differences and unmatched workloads as its caption."""

    table = Table(
        title=f"A = {side_text(comparison.label_a, comparison.runs_a)}, "
        f"B = {side_text(comparison.label_b, comparison.runs_b)}"
    )
    for i, header in enumerate(HEADERS):
        table.add_column(header, justify="left" if i in (0, 1, 6) else "right")
    colours = {"faster": "green", "slower": "red", "equivalent": "cyan"}
    for row in comparison.rows:
        cells = list(verdict_cells(row))
        colour = colours.get(row.verdict.kind)
        if colour and row.verdict.evaluated:
            cells[6] = f"[{colour}]{cells[6]}[/{colour}]"
        table.add_row(*cells)
    return table


def history_text(histories: list[SeriesHistory]) -> str:
    """Plain lines, one block per series."""
    lines: list[str] = []
    for h in histories:
        s = h.series
        lines.append(series_title(s))
        older = older_line(s)
        if older:
            lines.append(f"  {older}")
        latest = s.values[-1]
        lines.append(
            f"  latest {metric_value(s.metric, None if math.isnan(latest) else latest)}"
            f" at {when(s.times[-1])} (run {s.run_ids[-1]})"
        )
        if h.health is not None:
            lines.append("  " + health_line(h.health, s.metric))
        if h.failed_runs:
            failed = counted(h.failed_runs, "run")
            lines.append(
                f"  {failed} failed or {'was' if h.failed_runs == 1 else 'were'} interrupted (counted as 0 throughput)"
            )
        if h.changes:
            lines += ["  change: " + change_line(c) for c in h.changes]
        else:
            lines.append("  no change points")
        if h.outliers:
            lines.append("  outlier runs: " + outlier_runs_line(h.outliers, s.metric))
        if h.days and h.health is not None:
            lines.append("  " + daily_line(h.days, h.health.params.cov_target))
        if h.notebook:
            lines.append("  notebook:")
            lines += ["    " + notebook_line(entry) for entry in h.notebook]
        lines.append("")
    return "\n".join(lines)


def print_headline(report: RunReport, console: Console) -> None:
    """A run's answer, one line a figure (`views.headline`): what a page of it opens with."""
    from rich.markup import escape

    for figure in report.headline:
        console.print(f"  [bold]{escape(headline_line(figure))}[/bold]", soft_wrap=True, highlight=False)


def print_run_reports(reports: list[RunReport], console: Console) -> None:
    """Each run answer first: its title, headline figures and the findings that matter, then each table
    under its fixed parameters, then what ran where."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from iolab.report.findings import render_findings

    for report in reports:
        console.print(f"[bold]{escape(report.title)}[/bold]")
        print_headline(report, console)
        if report.findings:  # the critical and warning ones listed, the others counted
            console.print()
            render_findings(report.findings, console, verbose=False)
        for number, notebook in enumerate(report.tables, start=1):
            table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
            for column in notebook.columns:
                table.add_column(escape(column.header), justify="right" if column.numeric else "left")
            for row in notebook.rows:
                cells = [escape(cell) for cell in row.cells]
                table.add_row(*cells, style="red" if row.failed else None)
            console.print(f"\n[bold]Table {report.run.id}.{number}: {escape(notebook.title)}[/bold]")
            if notebook.fixed:
                console.print(f"[dim]fixed: {escape(notebook.fixed_text)}[/dim]", soft_wrap=True)
            console.print(table)
            for note in notebook.notes:
                console.print(f"  [red]{escape(note)}[/red]", soft_wrap=True)
        console.print()
        for label, value in report.facts:
            console.print(f"  {escape(label)}: {escape(value)}", soft_wrap=True)
        console.print()
    console.print(f"[dim]{escape(UNITS_NOTE)}[/dim]")
