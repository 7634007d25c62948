"""Commands that read stored results: `ls` and `show`."""

from __future__ import annotations

from typing import Annotated

import typer

from iolab.cli.application import app
from iolab.cli.output import FormatOpt, JsonOpt, OutputOpt

LS_LIMIT = 50  # runs `ls` lists at once: a screen or two, and quick however many runs the store holds


@app.command("ls")
def list_runs(
    limit: Annotated[int, typer.Option(min=1, help="Show at most this many runs, newest first.")] = LS_LIMIT,
    tag: Annotated[str | None, typer.Option("--tag", help="Only runs carrying this tag.")] = None,
    before: Annotated[
        int | None,
        typer.Option("--before", min=1, metavar="RUN", help="Only runs older than this one: the next page."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """List runs, newest first, with their tags; a line under the table says how to see the older ones."""
    import json
    import shlex

    from rich.console import Console

    from iolab.models.units import counted
    from iolab.report.json_output import run_dict
    from iolab.report.terminal import runs_table, stdout_console
    from iolab.store.db import open_store
    from iolab.store.provenance import imported_runs
    from iolab.store.queries import count_runs
    from iolab.store.queries import list_runs as query_runs
    from iolab.store.tags import notes_of, tags_of

    store = open_store(for_reading=True)
    runs = query_runs(store, limit, tag, before)
    tags = tags_of(store, [r.id for r in runs])
    if as_json:
        imported = imported_runs(store, [r.id for r in runs])  # tools, versions, files; absent for measured runs
        print(
            json.dumps(
                [
                    {**run_dict(r), "tags": tags[r.id], "notes": notes_of(store, r.id), "imported": imported.get(r.id)}
                    for r in runs
                ],
                indent=2,
            )
        )
    elif not runs:
        Console().print(_nothing_line(tag, before))
    else:
        console = stdout_console()
        console.print(runs_table(runs, tags))
        left = count_runs(store, tag, runs[-1].id) if len(runs) == limit else 0
        if left:
            again = ["iolab ls", f"--before {runs[-1].id}"]
            again += [f"--limit {limit}"] if limit != LS_LIMIT else []
            again += [f"--tag {shlex.quote(tag)}"] if tag else []
            console.print(
                f"{counted(left, 'older run')} not shown: `{' '.join(again)}` lists the next"
                f" {min(limit, left):,}, `--limit N` more at once",
                markup=False,
                highlight=False,
            )


def _nothing_line(tag: str | None, before: int | None) -> str:
    """What `ls` says when it lists no run."""
    older = f" older than run {before}" if before is not None else ""
    if tag:
        return f"No run{older} is tagged {tag!r}."
    return f"No runs{older}." if older else "No runs yet: start one with `iolab run`."


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
    from iolab.store.db import open_store
    from iolab.store.integrity import warn_unreadable
    from iolab.store.queries import resolve_run_id
    from iolab.views.run import RunSet

    store = open_store(for_reading=True)
    run_id = resolve_run_id(store, run)
    warn_unreadable(store, [run_id])
    emit("runs", RunSet(store, [run_id]), chosen(fmt, as_json), output, verbose)


@app.command("diff-env")
def diff_env(
    run_a: Annotated[str, typer.Argument(help="The earlier run (id or `last`).")],
    run_b: Annotated[str, typer.Argument(help="The later run (id or `last`).")],
) -> None:
    """What changed on the host between two runs: kernel, command line, firmware, queue settings, fullness..."""
    from iolab.errors import UserError
    from iolab.report.terminal import stdout_console
    from iolab.store.db import open_store
    from iolab.store.host_changes import host_changes
    from iolab.store.queries import resolve_run_id, run_snapshot

    store = open_store(for_reading=True)
    ids = [resolve_run_id(store, ref) for ref in (run_a, run_b)]
    changes = host_changes(store, ids[0], ids[1], every=True)
    if changes is None:
        missing = (
            ids[0]
            if run_snapshot(store, ids[0], "before") is None and run_snapshot(store, ids[0], "after") is None
            else ids[1]
        )
        raise UserError(f"run {missing} has no host snapshot (imported, or made before iolab kept snapshots)")
    console = stdout_console()
    if not changes:
        console.print(f"No differences between the hosts of run {ids[0]} and run {ids[1]}.")
    for change in changes:
        console.print(change.render(), highlight=False)
