"""A series' lab notebook: the tags and notes of its runs, in time order, each placed beside a change point.

Months of hourly runs are read for the moments someone changed something:
"checksums on", a tag `new-firmware` from one run onwards. Those are notes
and tags on runs; shown on the series' timeline and next to the change point
they sit by, a step in the figures and the note that explains it are read
together. The same tag or note on consecutive runs of the series is one
entry covering them, so a tag on 500 runs is one line, not 500.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from iolab.models.workload import Series


@dataclass(frozen=True)
class NotebookEntry:
    """A tag or note on one run of a series, or on consecutive runs of it."""

    kind: str  # "tag" or "note"
    text: str
    run_ids: tuple[int, ...]  # the series' runs carrying it, consecutive in the series
    time: float  # start of the first of them, epoch seconds
    last_time: float  # start of the last of them
    change_run: int | None = None  # the first run of the nearest change point; None without change points
    runs_from_change: int = 0  # the first run's position relative to it: -2 is two runs of the series before

    @property
    def first_run(self) -> int:
        return self.run_ids[0]

    @property
    def last_run(self) -> int:
        return self.run_ids[-1]


def series_notebook(
    series: Series, annotations: dict[int, list[tuple[str, str]]], change_indices: Sequence[int]
) -> list[NotebookEntry]:
    """The entries of `series`, oldest first, from its runs' (kind, text) pairs (`store.tags.annotations_of`);
    `change_indices` are the positions in the series of its change points' first runs."""
    positions: dict[tuple[str, str], list[int]] = {}
    for index, run_id in enumerate(series.run_ids):
        for mark in annotations.get(run_id, ()):
            positions.setdefault(mark, []).append(index)
    entries = []
    for (kind, text), indices in positions.items():
        for group in _consecutive(indices):
            change_run, offset = _nearest(group[0], change_indices, series.run_ids)
            entries.append(
                NotebookEntry(
                    kind,
                    text,
                    tuple(series.run_ids[i] for i in group),
                    series.times[group[0]],
                    series.times[group[-1]],
                    change_run,
                    offset,
                )
            )
    return sorted(entries, key=lambda e: (e.time, e.first_run, e.kind != "note", e.text))


def _consecutive(indices: list[int]) -> list[list[int]]:
    """[1, 2, 3, 7, 8] -> [[1, 2, 3], [7, 8]]."""
    groups: list[list[int]] = []
    for i in indices:
        if groups and i == groups[-1][-1] + 1:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _nearest(index: int, change_indices: Sequence[int], run_ids: Sequence[int]) -> tuple[int | None, int]:
    """The run of the change point nearest to position `index` (the later one on a tie: a note is usually
    written on the run where the change begins), and `index`'s offset from it in runs of the series."""
    if not change_indices:
        return None, 0
    at = min(change_indices, key=lambda c: (abs(index - c), -c))
    return run_ids[at], index - at
