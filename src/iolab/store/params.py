"""Many values in one SQL `IN (...)` list, cut to fit the bound parameters a statement may carry."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

# Bound parameters one statement may carry: SQLite before 3.32 allowed no more.
MAX_PARAMETERS = 999


def in_chunks(values: Sequence[T], uses: int = 1) -> Iterator[tuple[list[T], str]]:
    """`values` cut into chunks that fit one statement whose `IN (...)` list appears `uses` times, each with its
    placeholders ("?,?,?"): a series can have 10,000 runs, an import 10,000 files."""
    size = MAX_PARAMETERS // uses - 10  # room for a statement's other parameters
    for start in range(0, len(values), size):
        chunk = list(values[start : start + size])
        yield chunk, ",".join("?" * len(chunk))
