"""`iolab report`: a run's lab-notebook tables (terminal or Markdown), every point as CSV/JSON, or an HTML page.

The command only loads runs and picks a renderer; the tables come from
`iolab.views.tables`, the HTML page (tables, findings, charts) from
`iolab.report.html`. `--html` and `--png` write files beside whatever
`--format` prints, so one call can give a terminal summary and the page.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from iolab.cli.application import app

if TYPE_CHECKING:
    from iolab.store.db import Store


class ReportFormat(str, Enum):
    table = "table"
    md = "md"
    csv = "csv"
    json = "json"


@app.command()
def report(
    runs: Annotated[
        list[str],
        typer.Argument(
            help="Runs: ids from `iolab ls`, `last`, ranges 6-13, tag:NAME, windows 2025-06-01..2025-06-07.",
            show_default=False,
        ),
    ],
    fmt: Annotated[
        ReportFormat,
        typer.Option("--format", "-f", help="table (terminal), md (GitHub Markdown), csv or json (every point)."),
    ] = ReportFormat.table,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to FILE instead of standard output.")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Also write one self-contained HTML page with charts (no network needed to view it).",
        ),
    ] = None,
    png: Annotated[
        Path | None, typer.Option("--png", metavar="DIR", help="Also write every chart as a PNG file into DIR.")
    ] = None,
) -> None:
    """Lab-notebook tables of runs: one table per varied parameter, repeats as mean ± stddev."""
    import io
    import sys

    from rich.console import Console

    from iolab.report.terminal import PLAIN_WIDTH, print_run_reports
    from iolab.store.db import open_store
    from iolab.store.integrity import warn_unreadable
    from iolab.store.queries import get_run, run_points
    from iolab.store.selection import select_runs
    from iolab.views.run import run_report

    store = open_store(for_reading=True)
    run_ids = list(dict.fromkeys(run_id for ref in runs for run_id in select_runs(store, ref)))
    warn_unreadable(store, run_ids)
    if html is not None or png is not None:
        write_html(store, run_ids, html, png)
        if output is None and fmt is ReportFormat.table:
            return
    if fmt in (ReportFormat.csv, ReportFormat.json):
        from iolab.report.csv_output import points_csv
        from iolab.report.json_output import points_json
        from iolab.views.export import load_export

        exported = load_export(store, run_ids)
        text = points_csv(exported) if fmt is ReportFormat.csv else points_json(exported)
    else:
        reports = [run_report(store, get_run(store, run_id), run_points(store, run_id)) for run_id in run_ids]
        if fmt is ReportFormat.md:
            from iolab.report.markdown import comparison_markdown, render_markdown
            from iolab.views.comparison import axis_comparisons

            inside = [comparison_markdown(c) for run_id in run_ids for c in axis_comparisons(store, run_id)]
            text = "\n".join([render_markdown(reports), *inside])
        elif output is None and sys.stdout.isatty():
            print_run_reports(reports, Console(highlight=False))
            return
        else:  # a pipe or file has no width to fit: keep each row on one line
            buffer = io.StringIO()
            print_run_reports(reports, Console(file=buffer, width=PLAIN_WIDTH, color_system=None, highlight=False))
            text = buffer.getvalue()
    if output is None:
        sys.stdout.write(text)
    else:
        _write(output, text)


def write_html(
    store: Store, run_ids: list[int], path: Path | None, png_dir: Path | None, extra: list | None = None
) -> None:
    """The HTML page of the runs into `path`, and/or their charts as PNGs into `png_dir`.

    `extra` page builders follow the runs; by default, the history of the runs' workloads and a
    comparison where runs share workloads (`report.cross_sections.pages_for_runs`).
    """
    from iolab.errors import UserError
    from iolab.report.cross_sections import pages_for_runs
    from iolab.report.html import render_html
    from iolab.views.history import across_runs
    from iolab.views.run import load_run

    if png_dir is not None:
        try:
            png_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(
                f"cannot create {png_dir} for the PNG charts: {exc.strerror or exc}; choose another --png"
            ) from None
    try:
        pages = pages_for_runs(across_runs(store, run_ids)) if extra is None else extra
        text, written = render_html(
            [load_run(store, run_id) for run_id in run_ids], png_dir, pages, svg=path is not None
        )
    except OSError as exc:
        raise UserError(
            f"cannot write the PNG charts into {png_dir}: {exc.strerror or exc}; choose another --png"
        ) from None
    if png_dir is not None:
        typer.echo(f"wrote {len(written)} charts into {png_dir}", err=True)
    if path is not None:
        _write(path, text, "--html")


def _write(path: Path, text: str, option: str = "--output") -> None:
    """Write the finished report at once, so a failure never leaves half a file; private (0600), as it
    names hosts, targets and command lines."""
    from iolab.errors import UserError
    from iolab.private import write_private

    try:
        write_private(path, text)
    except OSError as exc:
        raise UserError(f"cannot write the report to {path}: {exc.strerror or exc}; choose another {option}") from None
    typer.echo(f"wrote {path}", err=True)
