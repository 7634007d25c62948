"""Commands that annotate runs: `tag` and `note`."""

from __future__ import annotations

from typing import Annotated

import typer

from iolab.cli.application import app


@app.command()
def tag(
    run: Annotated[str, typer.Argument(help="Run id from `iolab ls`, or `last`.")],
    tags: Annotated[list[str], typer.Argument(metavar="TAG...", help="Tags to add (or remove), e.g. baseline.")],
    remove: Annotated[bool, typer.Option("--remove", help="Remove these tags instead of adding them.")] = False,
) -> None:
    """Tag a run, so `iolab compare tag:A tag:B` and `iolab ls --tag A` can name a group of runs."""
    from iolab.store.db import open_store
    from iolab.store.queries import resolve_run_id
    from iolab.store.tags import add_tags, remove_tags, tags_of

    store = open_store()
    run_id = resolve_run_id(store, run)
    (remove_tags if remove else add_tags)(store, run_id, tags)
    print(f"run {run_id}: {', '.join(tags_of(store, [run_id])[run_id]) or 'no tags'}")


@app.command()
def note(
    run: Annotated[str, typer.Argument(help="Run id from `iolab ls`, or `last`.")],
    text: Annotated[str, typer.Argument(help='What to remember about the run, e.g. "after BIOS 2.1".')],
) -> None:
    """Attach a note to a run (shown by `iolab show`, its HTML report and `iolab ls --json`)."""
    from iolab.store.db import open_store
    from iolab.store.queries import resolve_run_id
    from iolab.store.tags import add_note

    store = open_store()
    run_id = resolve_run_id(store, run)
    add_note(store, run_id, text)
    print(f"run {run_id}: note added")
