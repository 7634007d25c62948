"""Commands that read stored results: `ls` and `show`."""

from __future__ import annotations

from typing import Annotated

import typer

from iolab.cli import app


@app.command("ls")
def list_runs(
    limit: Annotated[int, typer.Option(min=1, help="Show at most this many runs, newest first.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """List runs, newest first."""
    import json

    from rich.console import Console

    from iolab.report.export import run_dict
    from iolab.report.terminal import runs_table
    from iolab.store.db import open_store
    from iolab.store.queries import list_runs as query_runs

    runs = query_runs(open_store(), limit)
    if as_json:
        print(json.dumps([run_dict(r) for r in runs], indent=2))
    elif not runs:
        Console().print("No runs yet: start one with `iolab run`.")
    else:
        Console().print(runs_table(runs))


@app.command()
def show(
    run: Annotated[str, typer.Argument(help="Run id from `iolab ls`, or `last`.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Show a run's points and results."""
    from iolab.cli.runs import _print_run
    from iolab.store.db import open_store
    from iolab.store.queries import resolve_run_id

    store = open_store()
    _print_run(store, resolve_run_id(store, run), as_json)
