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


@app.command("diff-env")
def diff_env(
    run_a: Annotated[str, typer.Argument(help="The earlier run (id or `last`).")],
    run_b: Annotated[str, typer.Argument(help="The later run (id or `last`).")],
) -> None:
    """What changed on the host between two runs: kernel, command line, firmware, queue settings, fullness..."""
    from rich.console import Console

    from iolab.errors import UserError
    from iolab.models import Snapshot
    from iolab.probe import diff_snapshots
    from iolab.store.db import open_store
    from iolab.store.queries import resolve_run_id, run_snapshot

    store = open_store()
    ids = [resolve_run_id(store, ref) for ref in (run_a, run_b)]
    # The state a run ended in against the state the next one started in.
    snaps = [run_snapshot(store, ids[0], "after") or run_snapshot(store, ids[0], "before"),
             run_snapshot(store, ids[1], "before")]
    for run_id, snap in zip(ids, snaps):
        if snap is None:
            raise UserError(f"run {run_id} has no host snapshot (imported, or made before iolab kept snapshots)")
    changes = diff_snapshots(Snapshot.from_dict(snaps[0]), Snapshot.from_dict(snaps[1]))
    console = Console()
    if not changes:
        console.print(f"No differences between the hosts of run {ids[0]} and run {ids[1]}.")
    for change in changes:
        console.print(change.render(), highlight=False)
