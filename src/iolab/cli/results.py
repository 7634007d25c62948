"""Commands that read stored results: `ls` and `show`."""

from __future__ import annotations

from typing import Annotated

import typer

from iolab.cli.application import app
from iolab.cli.output import FormatOpt, JsonOpt, OutputOpt
from iolab.views.run_list import LS_LIMIT


@app.command("ls")
def list_runs(
    limit: Annotated[int, typer.Option(min=1, help="Show at most this many runs, newest first.")] = LS_LIMIT,
    tag: Annotated[str | None, typer.Option("--tag", help="Only runs carrying this tag.")] = None,
    before: Annotated[
        int | None,
        typer.Option("--before", min=1, metavar="RUN", help="Only runs older than this one: the next page."),
    ] = None,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List runs, newest first, with their tags; a line under the table says how to see the older ones."""
    from iolab.cli.output import chosen, emit
    from iolab.report.formats import RUN_LIST, renderer
    from iolab.store.db import open_store
    from iolab.views.run_list import load_run_list

    shown = chosen(fmt, as_json)
    renderer(shown, RUN_LIST)
    emit(RUN_LIST, load_run_list(open_store(for_reading=True), limit, tag, before), shown, output)


@app.command()
def show(
    run: Annotated[str, typer.Argument(help="Run id from `iolab ls`, or `last`.")],
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="List every finding, information and rules not evaluated too.")
    ] = False,
) -> None:
    """Show a run: its answer, findings and tables (the same as `iolab report` prints)."""
    from iolab.cli.output import chosen, emit
    from iolab.report.formats import RUNS, renderer
    from iolab.store.db import open_store
    from iolab.store.integrity import warn_unreadable
    from iolab.store.queries import resolve_run_id
    from iolab.views.run import RunSet

    shown = chosen(fmt, as_json)
    renderer(shown, RUNS)
    store = open_store(for_reading=True)
    run_id = resolve_run_id(store, run)
    warn_unreadable(store, [run_id])
    emit(RUNS, RunSet(store, [run_id]), shown, output, verbose)


@app.command("diff-env")
def diff_env(
    run_a: Annotated[str, typer.Argument(help="The earlier run (id or `last`).")],
    run_b: Annotated[str, typer.Argument(help="The later run (id or `last`).")],
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """What changed on the host between two runs: kernel, command line, firmware, queue settings, fullness..."""
    from iolab.cli.output import chosen, emit
    from iolab.report.formats import HOST_DIFF, renderer
    from iolab.store.db import open_store
    from iolab.store.queries import resolve_run_id
    from iolab.views.host_diff import load_host_diff

    shown = chosen(fmt, as_json)
    renderer(shown, HOST_DIFF)
    store = open_store(for_reading=True)
    earlier, later = (resolve_run_id(store, ref) for ref in (run_a, run_b))
    emit(HOST_DIFF, load_host_diff(store, earlier, later), shown, output)
