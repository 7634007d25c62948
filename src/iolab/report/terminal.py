"""Rich tables and live progress for the terminal."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from rich.console import Console, JustifyMethod
from rich.markup import escape
from rich.table import Table

from iolab.models import Point, Result, Run, units
from iolab.models.units import counted
from iolab.printable import Styled, escaping_console

# Every command that prints loads this module (`renderer` checks --format before a run starts, a dry run's
# included): what one view alone needs (the analysis behind tables, comparisons, histories) is imported in
# the function that draws it.

if TYPE_CHECKING:
    from iolab.models import Finding, Snapshot
    from iolab.views.comparison import Comparison
    from iolab.views.history import SeriesHistory
    from iolab.views.host_diff import HostDiff
    from iolab.views.lint import LintView
    from iolab.views.run import RunSet, RunView
    from iolab.views.run_list import RunList
    from iolab.views.tables import NotebookTable, RunReport

# Columns of a table written to a pipe or file: wide enough that no cell is cut or wrapped ("equival…").
PLAIN_WIDTH = 200


def _workload(point: Point) -> str:
    """rw and bs as the workload wrote them (under either of fio's names; fio's default where it gave none), its queue depth, and its jobs where more than one; for a file
    operation, what it does, its threads and files."""
    job = point.job
    if job.operation is not None:
        threads = f"{job.numjobs} thread{'s' if job.numjobs > 1 else ''}"
        return f"file {job.operation}, {threads}, {job.given('nrfiles') or '1'} files each"
    shape = f"{job.text('rw')} {job.text('bs')} QD{job.iodepth}"
    return shape + (f"×{job.numjobs}" if job.numjobs != 1 else "")


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
        self.console.print(f"[bold]Run {run_id}[/bold]{escape(planned)}")
        for note in notes:
            self.console.print(f"  [yellow]note:[/yellow] {escape(note)}")

    def phase(self, message: str) -> None:
        self.console.print(f"  {message} …", markup=False)

    def point_started(self, index: int, total: int, point: Point) -> None:
        eta = f", about {units.duration(self.remaining)} left" if self.remaining > 0 else ""
        where = f"{point.name} ({_workload(point)}) on {point.target.path}{eta}"
        self.console.print(f"  [{index}/{total}] {escape(where)} …")
        self.remaining = max(0.0, self.remaining - point.expected_seconds)

    def point_finished(self, index: int, total: int, point: Point, result: Result | None, error: str) -> None:
        if error:
            self.console.print(f"  [{index}/{total}] [red]failed:[/red] {escape(error)}")
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


def print_comparison(comparison: Comparison, console: Console) -> None:
    """The verdict table, then the host differences and the workloads only one side has."""
    from iolab.report.wording import comparison_notes

    console.print(comparison_table(comparison))
    for line in comparison_notes(comparison):
        console.print(line, highlight=False, markup=False)


def comparison_table(comparison: Comparison) -> Table:
    """The verdicts as a Rich table; host differences and unmatched workloads as its caption."""
    from iolab.report.wording import HEADERS, side_text, verdict_cells

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
    from iolab.report.wording import history_blocks

    lines: list[str] = []
    for title, block in history_blocks(histories):
        lines += [title, *("  " + line for line in block), ""]
    return "\n".join(lines)


def print_headline(report: RunReport, console: Console) -> None:
    """A run's answer, one line a figure (`views.headline`): what a page of it opens with."""
    from iolab.views.headline import headline_line

    for figure in report.headline:
        console.print(f"  [bold]{escape(headline_line(figure))}[/bold]", soft_wrap=True, highlight=False)
    if report.no_headline:
        console.print(f"  {escape(report.no_headline)}", soft_wrap=True, highlight=False)


def notebook_table(table: NotebookTable) -> Table:
    """One of a run's tables as Rich lays it out: numeric columns right-aligned, failed rows red."""
    from rich import box

    shown = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for column in table.columns:
        shown.add_column(escape(column.header), justify="right" if column.numeric else "left")
    for row in table.rows:
        shown.add_row(*(escape(cell) for cell in row.cells), style="red" if row.failed else None)
    return shown


def print_report(report: RunReport, console: Console, verbose: bool = False) -> None:
    """One run answer first: its title, headline figures and the findings that matter, then each table
    under its fixed parameters (an array's devices and scaling, its hosts included), then what ran where."""
    from iolab.report.findings import render_findings

    console.print(f"[bold]{escape(report.title)}[/bold]")
    print_headline(report, console)
    if report.findings:  # the critical and warning ones listed, the others counted
        console.print()
        render_findings(report.findings, console, verbose=verbose)
    for number, table in enumerate(report.tables, start=1):
        console.print(f"\n[bold]Table {report.run.id}.{number}: {escape(table.title)}[/bold]")
        if table.fixed:
            console.print(f"[dim]fixed: {escape(table.fixed_text)}[/dim]", soft_wrap=True)
        console.print(notebook_table(table))
        if table.caption:
            console.print(f"  [dim]{escape(table.caption)}[/dim]", soft_wrap=True)
        for note in table.notes:
            console.print(f"  [red]{escape(note)}[/red]", soft_wrap=True)
    console.print()
    for label, value in report.facts:
        console.print(f"  {escape(label)}: {escape(value)}", soft_wrap=True)
    console.print()


def print_runs(views: Sequence[RunView], console: Console, verbose: bool = False) -> None:
    """Each run's report and the A/B of a host setting it made, then the units note once."""
    from iolab.views.tables import UNITS_NOTE

    for view in views:
        print_report(view.report, console, verbose)
        for comparison in view.comparisons:
            print_comparison(comparison, console)
    console.print(f"[dim]{escape(UNITS_NOTE)}[/dim]")


def text_console(file: TextIO, terminal: bool) -> Console:
    """A console writing into `file`: a terminal's width and colours, or plain rows of PLAIN_WIDTH; the text it
    prints escaped (`iolab.printable`)."""
    if terminal:
        return escaping_console(file, force_terminal=True, width=Console().width, highlight=False)
    return escaping_console(file, width=PLAIN_WIDTH, color_system=None, highlight=False)


def _rendered(draw: Callable[[Console], None], terminal: bool) -> str:
    """What `draw` prints: every character escaped but the colours the console drew (`Styled`)."""
    buffer = io.StringIO()
    draw(text_console(buffer, terminal))
    return Styled(buffer.getvalue())


def render_runs(runs: RunSet, terminal: bool = False, verbose: bool = False) -> str:
    return _rendered(lambda console: print_runs(runs.views, console, verbose), terminal)


def render_comparison(comparison: Comparison, terminal: bool = False, verbose: bool = False) -> str:
    return _rendered(lambda console: print_comparison(comparison, console), terminal)


def render_history(histories: list[SeriesHistory], terminal: bool = False, verbose: bool = False) -> str:
    return history_text(histories)


def render_doctor(findings: list[Finding], terminal: bool = False, verbose: bool = False) -> str:
    from iolab.report.findings import render_findings

    return _rendered(lambda console: render_findings(findings, console, verbose=True), terminal)


def render_run_list(listed: RunList, terminal: bool = False, verbose: bool = False) -> str:
    """`iolab ls`: the runs' table, and a line saying how to list the older ones it leaves out."""

    def draw(console: Console) -> None:
        if not listed.runs:
            console.print(listed.nothing(), markup=False)
            return
        console.print(runs_table([r.run for r in listed.runs], {r.run.id: r.tags for r in listed.runs}))
        more = listed.next_page()
        if more:
            console.print(
                f"{counted(listed.left, 'older run')} not shown: `{more}` lists the next"
                f" {min(listed.limit, listed.left):,}, `--limit N` more at once",
                markup=False,
            )

    return _rendered(draw, terminal)


def render_snapshot(snapshot: Snapshot, terminal: bool = False, verbose: bool = False) -> str:
    from iolab.report.snapshot_text import print_snapshot

    return _rendered(lambda console: print_snapshot(snapshot, console), terminal)


def render_lint(lint: LintView, terminal: bool = False, verbose: bool = False) -> str:
    """The findings, then what the job file would write and run."""
    from iolab.report.findings import render_findings

    def draw(console: Console) -> None:
        render_findings(lint.findings, console)
        for line in lint.writes or ["nothing: reads only"]:
            console.print(f"writes: {line}", markup=False)
        for line in lint.runs:
            console.print(f"runs: {line} (iolab runs it only with --allow-commands)", markup=False)

    return _rendered(draw, terminal)


def render_host_diff(diff: HostDiff, terminal: bool = False, verbose: bool = False) -> str:
    lines = [change.render() for change in diff.changes] or [diff.nothing()]
    return "\n".join(lines) + "\n"


RENDERS = {
    "runs": render_runs,
    "comparison": render_comparison,
    "history": render_history,
    "doctor": render_doctor,
    "run_list": render_run_list,
    "snapshot": render_snapshot,
    "lint": render_lint,
    "host_diff": render_host_diff,
}
