"""A series' notebook: each tag or note once per stretch of consecutive runs carrying it (a tag on runs 3-5 and
again on run 9 is two entries), dated by its first and last run, placed against the nearest change point (the
later one on a tie: a note is usually written on the run where the change begins) in runs of the series, and
ordered by time, a note before a tag of the same run. `views.notebook.series_notebook` over a series made here."""

from __future__ import annotations

from iolab.models.workload import Series
from iolab.views.notebook import series_notebook

HOUR = 3600.0


def _series(n: int) -> Series:
    runs = [100 + i for i in range(n)]  # run ids unlike positions, so a mix-up shows
    return Series("h", "/t", "w", "w", "bw", runs, [1.7e9 + HOUR * i for i in range(n)], [1e9] * n, [False] * n)


def test_consecutive_runs_carrying_a_mark_are_one_entry_and_a_gap_starts_another():
    series = _series(12)
    marks = {102: [("tag", "fw2")], 103: [("tag", "fw2")], 104: [("tag", "fw2")], 108: [("tag", "fw2")]}
    entries = series_notebook(series, marks, [])
    assert [(e.run_ids, e.first_run, e.last_run) for e in entries] == [((102, 103, 104), 102, 104), ((108,), 108, 108)]
    assert [(e.time, e.last_time) for e in entries] == [(series.times[2], series.times[4]), (series.times[8],) * 2]
    assert all(e.change_run is None and e.runs_from_change == 0 for e in entries)


def test_an_entry_is_placed_against_the_nearest_change_point_the_later_on_a_tie():
    series = _series(12)
    marks = {101: [("note", "a")], 104: [("note", "b")], 105: [("note", "c")], 111: [("note", "d")]}
    entries = series_notebook(series, marks, [3, 7])
    placed = {e.text: (e.change_run, e.runs_from_change) for e in entries}
    assert placed == {"a": (103, -2), "b": (103, 1), "c": (107, -2), "d": (107, 4)}
    tie = series_notebook(series, {105: [("note", "mid")]}, [3, 7])
    assert [(e.change_run, e.runs_from_change) for e in tie] == [(107, -2)]


def test_entries_are_in_time_order_a_note_before_a_tag_of_the_same_run():
    series = _series(6)
    marks = {104: [("tag", "b"), ("note", "z")], 101: [("tag", "late-name")], 102: [("tag", "a"), ("tag", "c")]}
    entries = series_notebook(series, marks, [])
    assert [(e.first_run, e.kind, e.text) for e in entries] == [
        (101, "tag", "late-name"),
        (102, "tag", "a"),
        (102, "tag", "c"),
        (104, "note", "z"),
        (104, "tag", "b"),
    ]
