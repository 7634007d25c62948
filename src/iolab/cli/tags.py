"""Commands that annotate runs: `tag` and `note`.

Both take the runs as ONE argument (`12`, `6-8`, `6,7,8`, `tag:NAME`, a time
window; `iolab.store.selection`), so nothing after it can be read as a run
or a run as a tag. A tag written like a run selection is refused: `iolab tag
6 7 8 before` would otherwise tag run 6 with "7", "8" and "before", as the
old `tag RUN TAG...` did; `--remove` still takes such tags off.
"""

from __future__ import annotations

from typing import Annotated

import typer

from iolab.cli.application import app

_RUNS_HELP = "Runs: an id, `last`, a range 6-8, a list 6,7,12, tag:NAME, or a window 2025-06-01..2025-06-08."


@app.command()
def tag(
    runs: Annotated[str, typer.Argument(metavar="RUNS", help=_RUNS_HELP)],
    tags: Annotated[list[str], typer.Argument(metavar="TAG...", help="Tags to add (or remove), e.g. baseline.")],
    remove: Annotated[bool, typer.Option("--remove", help="Remove these tags instead of adding them.")] = False,
) -> None:
    """Tag runs, so `iolab compare tag:A tag:B` and `iolab ls --tag A` can name a group of runs."""
    from iolab.store.db import open_store
    from iolab.store.selection import select_runs
    from iolab.store.tags import add_tags, remove_tags, tags_of

    if not remove:  # removing is how a tag the old form put on a run ("7") comes off
        _refuse_runs_as_tags(runs, tags)
    store = open_store()
    run_ids = select_runs(store, runs)
    (remove_tags if remove else add_tags)(store, run_ids, tags)
    if len(run_ids) == 1:
        print(f"run {run_ids[0]}: {', '.join(tags_of(store, run_ids)[run_ids[0]]) or 'no tags'}")
    else:
        done = "removed from" if remove else "added to"
        print(f"{', '.join(tags)} {done} {_runs_text(run_ids)}")


def _refuse_runs_as_tags(runs: str, tags: list[str]) -> None:
    """A tag written like runs (`iolab tag 6 7 baseline`) is the old form's mistake: refused with the command
    meant. (Removing is exempt, and a run never carries a tag by mistake of this command.)"""
    from iolab.errors import UserError
    from iolab.store.selection import looks_like_runs

    mistaken = [name for name in tags if looks_like_runs(name)]
    if mistaken:
        rest = [name for name in tags if name not in mistaken]
        raise UserError(
            f"{mistaken[0]!r} is written like runs, not a tag: give every run in the first argument, "
            f"e.g. `iolab tag {','.join([runs, *mistaken])} {' '.join(rest) or 'TAG'}`"
        )


@app.command()
def note(
    runs: Annotated[str, typer.Argument(metavar="RUNS", help=_RUNS_HELP)],
    text: Annotated[str, typer.Argument(help='What to remember about the runs, e.g. "after BIOS 2.1".')],
) -> None:
    """Attach a note to runs (shown by `iolab show`, its HTML report, `iolab ls --json` and exports)."""
    from iolab.store.db import open_store
    from iolab.store.selection import select_runs
    from iolab.store.tags import add_note

    store = open_store()
    run_ids = select_runs(store, runs)
    add_note(store, run_ids, text)
    print(f"note added to {_runs_text(run_ids)}")


def _runs_text(run_ids: list[int]) -> str:
    """`run 7`, `3 runs (6, 7, 8)`, or for many `400 runs (6 ... 405)`."""
    if len(run_ids) == 1:
        return f"run {run_ids[0]}"
    shown = ", ".join(map(str, run_ids)) if len(run_ids) <= 10 else f"{run_ids[0]} ... {run_ids[-1]}"
    return f"{len(run_ids)} runs ({shown})"
