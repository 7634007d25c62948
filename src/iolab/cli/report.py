"""`iolab report`: runs' tables in any format (`report.formats`), or an HTML page with charts.

The command only loads runs and picks a renderer; the tables come from
`iolab.views.run` (the same `show` and `run` print), the HTML page (tables, findings, charts) from
`iolab.report.html`. `--html` and `--png` write files beside whatever
`--format` prints, so one call can give a terminal summary and the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from iolab.cli.application import app
from iolab.cli.output import FormatOpt, JsonOpt, OutputOpt

if TYPE_CHECKING:
    from iolab.store.db import Store


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
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Also write one self-contained HTML page with charts and the runs' history and comparison "
            "(no network needed to view it).",
        ),
    ] = None,
    png: Annotated[
        Path | None, typer.Option("--png", metavar="DIR", help="Also write every chart as a PNG file into DIR.")
    ] = None,
) -> None:
    """Lab-notebook tables of runs: one table per varied parameter, repeats as mean ± stddev; csv: every point."""
    from iolab.cli.output import chosen, emit
    from iolab.store.db import open_store
    from iolab.store.integrity import warn_unreadable
    from iolab.store.selection import select_runs
    from iolab.views.run import RunSet

    store = open_store(for_reading=True)
    run_ids = list(dict.fromkeys(run_id for ref in runs for run_id in select_runs(store, ref)))
    warn_unreadable(store, run_ids)
    if html is not None or png is not None:
        write_html(store, run_ids, html, png)
        if output is None and fmt is None and not as_json:
            return
    emit("runs", RunSet(store, run_ids), chosen(fmt, as_json), output)


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
    from iolab.cli.output import write_file

    write_file(path, text, option)
