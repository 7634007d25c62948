"""Queries over many runs, points or files fit SQLite's oldest limit of 999 bound parameters (before 3.32):
the store is held to that limit here, whatever this SQLite allows."""

from __future__ import annotations

import sqlite3

from iolab.models import Point, Target
from iolab.store.columns import read_series
from iolab.store.db import open_store
from iolab.store.params import MAX_PARAMETERS, in_chunks
from iolab.store.provenance import runs_holding
from iolab.store.tags import add_note, add_tags, annotations_of, tags_of

MANY = 1500  # more than 999, and more than 999 / 2 for a list used twice


def test_in_chunks_keeps_every_value_once_within_the_limit():
    values = list(range(2500))
    for uses in (1, 2, 3):
        chunks = list(in_chunks(values, uses))
        assert [v for chunk, _ in chunks for v in chunk] == values
        assert all(len(chunk) * uses <= MAX_PARAMETERS and marks.count("?") == len(chunk) for chunk, marks in chunks)


def test_tags_notes_series_and_provenance_of_many_at_once():
    store = open_store()
    store.conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, MAX_PARAMETERS)
    runs = [store.create_run(f"r{n}", "test", [], "") for n in range(MANY)]
    add_tags(store, runs, ["night"])
    add_note(store, runs[-1:], "the last one")
    assert all(tags == ["night"] for tags in tags_of(store, runs).values())
    annotations = annotations_of(store, runs)
    assert len(annotations) == MANY and annotations[runs[-1]] == [("tag", "night"), ("note", "the last one")]
    target = Target(path="/tmp/x", kind="file", filename="/tmp/x", size_bytes=0)
    points = store.plan_points(runs[0], [Point(f"p{n}", target) for n in range(MANY)])
    assert read_series(store.conn, points) == {point: [] for point in points}
    assert runs_holding(store, [f"{n:064x}" for n in range(MANY)]) == {}
