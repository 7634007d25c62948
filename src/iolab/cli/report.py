"""`iolab report`: runs' tables in any format (`report.formats`), or an HTML page with charts.

The command only loads runs and picks a renderer; the tables come from
`iolab.views.run` (the same `show` and `run` print), the HTML page (tables, findings, charts) from
`iolab.report.html`. `--html FILE` is `--format html -o FILE` beside whatever `--format` prints, and
`--png DIR` writes the page's charts as files, so one call can give a terminal summary and the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from iolab.cli.application import app
from iolab.cli.output import FormatOpt, HtmlOpt, JsonOpt, OutputOpt

if TYPE_CHECKING:
    from iolab.report.html import PageBuilder
    from iolab.views.run import RunView


@app.command()
def report(
    runs: Annotated[
        list[str],
        typer.Argument(
            help="Runs: ids from `iolab ls`, `last`, ranges 6-13, tag:NAME, windows 2025-06-01..2025-06-07.",
            show_default=False,
        ),
    ],
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
    html: HtmlOpt = None,
    png: Annotated[
        Path | None, typer.Option("--png", metavar="DIR", help="Also write every chart as a PNG file into DIR.")
    ] = None,
) -> None:
    """Lab-notebook tables of runs: one table per varied parameter, repeats as mean ± stddev; csv: every point;
    html: one self-contained page with charts and the runs' history and comparison (no network needed)."""
    from iolab.cli.output import check, emit_all, outputs
    from iolab.report.formats import RUNS
    from iolab.store.db import open_store
    from iolab.store.integrity import warn_unreadable
    from iolab.store.selection import select_runs
    from iolab.views.run import RunSet

    wanted = outputs(fmt, output, as_json, {"html": html}, elsewhere=png is not None)
    check(RUNS, wanted)
    store = open_store(for_reading=True)
    run_ids = list(dict.fromkeys(run_id for ref in runs for run_id in select_runs(store, ref)))
    warn_unreadable(store, run_ids)
    shown = RunSet(store, run_ids)
    if png is not None:
        from iolab.report.cross_sections import pages_for_runs

        write_pngs(shown.views, png, pages_for_runs(shown.across))
    emit_all(RUNS, shown, wanted)


def write_pngs(views: list[RunView], png_dir: Path, pages: list[PageBuilder]) -> None:
    """Every chart of the runs' pages and of `pages` (history, comparison) as a PNG file in `png_dir`."""
    from iolab.errors import UserError
    from iolab.report.html import render_html

    try:
        png_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            f"cannot create {png_dir} for the PNG charts: {exc.strerror or exc}; choose another --png"
        ) from None
    try:
        _, written = render_html(views, png_dir, pages, svg=False)
    except OSError as exc:
        raise UserError(
            f"cannot write the PNG charts into {png_dir}: {exc.strerror or exc}; choose another --png"
        ) from None
    typer.echo(f"wrote {len(written)} charts into {png_dir}", err=True)
