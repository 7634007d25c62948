"""Which runs a person means: one id, a range, a list, a tag, a time window.

Monitoring for months leaves hundreds of runs; comparing "the week before
the change" with "the week after" must not need every id typed out. A
selection is one argument, so a command taking several of them (`compare A
B`, `tag RUNS TAG...`) can never read a run as something else:

    12          one run            last     the newest run
    6-13        runs 6 to 13 (both ends, those that exist)
    tag:NAME    every run carrying the tag
    FROM..TO    runs started in the window; either end may be left out
    6-8,12      any of the above, joined by commas (their union)

A time is ISO 8601 (`2025-06-01`, `2025-06-01T14:30`, with or without a
UTC offset; without one it is local time). A date as the end of a window
covers that whole day; a time covers up to and including that instant.
`Window` narrows a selection further (`--since/--until`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from iolab.errors import UserError
from iolab.store.db import Store
from iolab.store.queries import resolve_run_id
from iolab.store.tags import tagged_runs

_RANGE = re.compile(r"(\d+)-(\d+)")
_ID = re.compile(r"\d+")
_LARGEST_ID = 2**63 - 1  # SQLite's integer; a larger bound is a typo, not a run
SYNTAX = "a run id, `last`, a range such as 6-13, tag:NAME or a time window such as 2025-06-01..2025-06-08"


@dataclass(frozen=True)
class Window:
    """Runs started at `since` or later and before `until` (seconds since the epoch; None: open)."""

    since: float | None = None
    until: float | None = None
    text: str = ""  # as the user wrote it, for messages and labels

    def holds(self, started_at: float) -> bool:
        return (self.since is None or started_at >= self.since) and (self.until is None or started_at < self.until)


def parse_time(text: str, *, end: bool, what: str) -> float:
    """Seconds since the epoch of an ISO date or time; as the `end` of a window, a date means its whole day.

    A time without a UTC offset is local time, as `iolab ls` shows it.
    """
    cleaned = text.strip()
    try:
        moment = datetime.fromisoformat(cleaned)
    except ValueError:
        raise UserError(
            f"{what} {text[:40]!r} is not a date or time: write it like 2025-06-01 or 2025-06-01T14:30"
        ) from None
    if end:
        is_date = _is_date(cleaned)
        # Inclusive: the whole day of a date, the instant itself of a time (stored times have microseconds).
        moment += timedelta(days=1) if is_date else timedelta(microseconds=1)
    return moment.timestamp()


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def window(since: str | None, until: str | None, names: tuple[str, str] = ("--since", "--until")) -> Window | None:
    """The window from `since` to `until` (None when neither is given); UserError when it is empty or backwards.

    `names` say where each end was written, for the messages.
    """
    if since is None and until is None:
        return None
    start = parse_time(since, end=False, what=names[0]) if since is not None else None
    stop = parse_time(until, end=True, what=names[1]) if until is not None else None
    if start is not None and stop is not None and stop <= start:
        raise UserError(f"{names[1]} {until} is not after {names[0]} {since}: the window holds no time")
    text = " ".join(part for part in (since and f"since {since}", until and f"until {until}") if part)
    return Window(start, stop, text)


def looks_like_runs(text: str) -> bool:
    """Whether `text` is written like a selection of runs rather than a name: a tag must not be."""
    return any(_kind(item) != "word" for item in text.split(",")) if text else False


def _kind(item: str) -> str:
    if item in ("last", "latest") or _ID.fullmatch(item):
        return "id"
    if _RANGE.fullmatch(item):
        return "range"
    if item.startswith("tag:"):
        return "tag"
    if ".." in item:
        return "window"
    return "word"


def select_runs(store: Store, spec: str, narrow: Window | None = None) -> list[int]:
    """Ids of the runs `spec` names, oldest first, each once; narrowed to `narrow` when given.

    UserError when the spec is not written as a selection or selects no run.
    """
    items = spec.split(",")
    if not spec.strip() or any(not item.strip() for item in items):
        raise UserError(f"{spec[:40]!r} names no runs: give {SYNTAX}")
    found: set[int] = set()
    for item in (item.strip() for item in items):
        found.update(_item_runs(store, item))
    ids = sorted(found)
    if narrow is not None:
        started = dict(store.conn.execute("SELECT id, started_at FROM runs").fetchall())
        ids = [run_id for run_id in ids if narrow.holds(started[run_id])]
        if not ids:
            raise UserError(f"no run of {spec[:40]} started {narrow.text}: `iolab ls` lists the runs and when")
    return ids


def _item_runs(store: Store, item: str) -> list[int]:
    kind = _kind(item)
    if kind == "id":
        return [resolve_run_id(store, item)]
    if kind == "tag":
        return tagged_runs(store, item[len("tag:") :])
    if kind == "range":
        return _range_runs(store, item)
    if kind == "window":
        return _window_runs(store, item)
    if _is_date(item):
        raise UserError(f"{item!r} is a date, not runs: for the runs of that day write {item}..{item}")
    raise UserError(f"{item[:40]!r} is not a run selection: give {SYNTAX}")


def _range_runs(store: Store, item: str) -> list[int]:
    match = _RANGE.fullmatch(item)
    assert match is not None  # _kind said so
    first, last = int(match[1]), int(match[2])
    if first > last:
        raise UserError(f"range {item} runs backwards: write the older run first, e.g. {last}-{first}")
    if last > _LARGEST_ID:
        raise UserError(f"range {item[:40]} reaches past any run id: `iolab ls` lists the runs")
    ids = [r[0] for r in store.conn.execute("SELECT id FROM runs WHERE id BETWEEN ? AND ? ORDER BY id", (first, last))]
    if not ids:
        raise UserError(f"there is no run in {item}: `iolab ls` lists the runs")
    return ids


def _window_runs(store: Store, item: str) -> list[int]:
    since, _, until = item.partition("..")
    if ".." in until or not (since.strip() or until.strip()):
        raise UserError(
            f"{item[:40]!r} is not a time window: write it like 2025-06-01..2025-06-08 (either end optional)"
        )
    bounds = window(since.strip() or None, until.strip() or None, ("window start", "window end"))
    assert bounds is not None
    rows = store.conn.execute("SELECT id, started_at FROM runs ORDER BY id").fetchall()
    ids = [run_id for run_id, started in rows if bounds.holds(started)]
    if not ids:
        raise UserError(f"no run started in {item}: `iolab ls` lists the runs and when")
    return ids
