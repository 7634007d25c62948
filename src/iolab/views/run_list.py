"""What `iolab ls` shows: a page of runs, newest first, with their tags, notes and where imported ones came
from, and how many older runs the page leaves out (with the command that lists them)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `iolab ls` reads LS_LIMIT for its help: nothing heavy is imported with it
    from iolab.models import Run
    from iolab.store.db import Store

LS_LIMIT = 50  # runs `ls` lists at once: a screen or two, and quick however many runs the store holds


@dataclass(frozen=True)
class ListedRun:
    run: Run
    tags: list[str]
    notes: list[str]
    imported: dict[str, object] | None  # tools, versions, files; None for a measured run


@dataclass(frozen=True)
class RunList:
    runs: list[ListedRun]
    left: int  # older runs this page leaves out
    limit: int
    tag: str | None
    before: int | None

    def next_page(self) -> str | None:
        """The command that lists the older runs this page leaves out; None when it leaves none."""
        if not self.left:
            return None
        again = ["iolab ls", f"--before {self.runs[-1].run.id}"]
        again += [f"--limit {self.limit}"] if self.limit != LS_LIMIT else []
        again += [f"--tag {shlex.quote(self.tag)}"] if self.tag else []
        return " ".join(again)

    def nothing(self) -> str:
        """What the page says when it lists no run."""
        older = f" older than run {self.before}" if self.before is not None else ""
        if self.tag:
            return f"No run{older} is tagged {self.tag!r}."
        return f"No runs{older}." if older else "No runs yet: start one with `iolab run`."


def load_run_list(store: Store, limit: int = LS_LIMIT, tag: str | None = None, before: int | None = None) -> RunList:
    from iolab.store.provenance import imported_runs
    from iolab.store.queries import count_runs, list_runs
    from iolab.store.tags import notes_of, tags_of

    runs = list_runs(store, limit, tag, before)
    ids = [r.id for r in runs]
    tags, imported = tags_of(store, ids), imported_runs(store, ids)
    left = count_runs(store, tag, runs[-1].id) if len(runs) == limit else 0
    listed = [ListedRun(r, tags[r.id], notes_of(store, r.id), imported.get(r.id)) for r in runs]
    return RunList(listed, left, limit, tag, before)
