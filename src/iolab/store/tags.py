"""Tags and notes on runs: how a person names a group of runs ("baseline", "new-firmware") and says why."""

from __future__ import annotations

import re
import time

from iolab.errors import UserError
from iolab.store.db import Store
from iolab.store.params import in_chunks

_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}")  # fullmatch: `$` would let a final newline in


def check_tag(tag: str) -> str:
    """A tag as stored; UserError when it could not be typed back (spaces, empty, too long)."""
    if not _TAG.fullmatch(tag):
        raise UserError(
            f"tag {tag!r} is not usable: letters, digits and . _ : + -, starting with a letter or digit, at most 64"
        )
    return tag


def add_tags(store: Store, run_ids: list[int], tags: list[str]) -> None:
    """Tag every run in `run_ids` with every tag; one bad tag stores none of them."""
    checked = [check_tag(t) for t in tags]
    with store.conn:
        store.conn.executemany(
            "INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?, ?)", [(r, t) for r in run_ids for t in checked]
        )


def remove_tags(store: Store, run_ids: list[int], tags: list[str]) -> None:
    """Remove tags from runs; a tag one of them does not carry is a UserError (probably a typo), and then
    nothing is removed."""
    carried = tags_of(store, run_ids)
    for run_id in run_ids:
        missing = [t for t in tags if t not in carried[run_id]]
        if missing:
            present = ", ".join(carried[run_id]) or "none"
            raise UserError(f"run {run_id} has no tag {missing[0]!r}; its tags: {present}")
    with store.conn:
        store.conn.executemany("DELETE FROM tags WHERE run_id = ? AND tag = ?", [(r, t) for r in run_ids for t in tags])


def add_note(store: Store, run_ids: list[int], text: str) -> None:
    """The same note on every run in `run_ids`."""
    if not text.strip():
        raise UserError('a note needs some text, e.g. iolab note last "after the BIOS update"')
    now = time.time()
    with store.conn:
        store.conn.executemany(
            "INSERT INTO notes (run_id, created_at, text) VALUES (?, ?, ?)", [(r, now, text.strip()) for r in run_ids]
        )


def tags_of(store: Store, run_ids: list[int]) -> dict[int, list[str]]:
    """Run id -> its tags, sorted (an empty list for a run without tags)."""
    out: dict[int, list[str]] = {rid: [] for rid in run_ids}
    for chunk, marks in in_chunks(run_ids):
        for run_id, tag in store.conn.execute(
            f"SELECT run_id, tag FROM tags WHERE run_id IN ({marks}) ORDER BY tag", chunk
        ):
            out[run_id].append(tag)
    return out


def notes_of(store: Store, run_id: int) -> list[str]:
    return [r[0] for r in store.conn.execute("SELECT text FROM notes WHERE run_id = ? ORDER BY id", (run_id,))]


def annotations_of(store: Store, run_ids: list[int]) -> dict[int, list[tuple[str, str]]]:
    """Run id -> its ("tag", name) and ("note", text) pairs, tags sorted then notes as written; runs
    without any are left out. For many runs at once: a history reads those of every run of a series."""
    out: dict[int, list[tuple[str, str]]] = {}
    for chunk, marks in in_chunks(run_ids, uses=2):  # the ids twice: tags, then notes
        rows = store.conn.execute(
            f"SELECT run_id, 'tag', tag, 0, 0 FROM tags WHERE run_id IN ({marks}) UNION ALL "
            f"SELECT run_id, 'note', text, 1, id FROM notes WHERE run_id IN ({marks}) ORDER BY 1, 4, 5, 3",
            [*chunk, *chunk],
        )
        for run_id, kind, text, _, _ in rows:
            out.setdefault(run_id, []).append((kind, text))
    return out


def tagged_runs(store: Store, tag: str) -> list[int]:
    """Ids of the runs carrying `tag`, oldest first; UserError when none does."""
    ids = [r[0] for r in store.conn.execute("SELECT run_id FROM tags WHERE tag = ? ORDER BY run_id", (tag,))]
    if not ids:
        known = [r[0] for r in store.conn.execute("SELECT DISTINCT tag FROM tags ORDER BY tag LIMIT 20")]
        raise UserError(f"no run is tagged {tag!r}; tags in use: {', '.join(known) or 'none (see iolab tag)'}")
    return ids
