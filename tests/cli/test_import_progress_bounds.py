"""The progress line's bounds, as a user sees them at each edge: a terminal sees it from the first second
on (not before), redrawn at most ten times a second; off a terminal an import of 1,000 files or more gets a
line at each tenth and a smaller one none; the time left turns into minutes at one minute, and the bar is
20 cells however far the import got."""

from __future__ import annotations

import io

import pytest

from iolab.cli import import_progress
from iolab.cli.import_progress import ImportProgress, line


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _clock(monkeypatch, times: list[float]) -> None:  # type: ignore[no-untyped-def]
    moments = iter(times)
    monkeypatch.setattr(import_progress.time, "monotonic", lambda: next(moments))


def test_a_terminal_sees_the_line_from_the_first_second_redrawn_at_most_ten_times_a_second(monkeypatch):
    # started at 0; files stored at 0.99 s, 1.0 s, 1.09 s, 1.1 s, 1.15 s (the last)
    _clock(monkeypatch, [0.0, 0.99, 1.0, 1.09, 1.1, 1.15])
    out = _Terminal()
    progress = ImportProgress(out)
    for done in range(1, 6):
        progress(done, 5)
    drawn = [part.removesuffix("\x1b[K") for part in out.getvalue().split("\r")[1:]]
    assert [d.split(" files")[0] for d in drawn] == ["import 2/5", "import 4/5", "import 5/5"]
    progress.close()
    assert out.getvalue().endswith("\x1b[K\n")


def test_nothing_is_drawn_or_ended_before_the_first_second(monkeypatch):
    _clock(monkeypatch, [0.0, 0.5, 0.9])
    out = _Terminal()
    progress = ImportProgress(out)
    progress(1, 2)
    progress(2, 2)  # the last, but before the first second: an import this short shows nothing
    progress.close()
    assert out.getvalue() == ""


@pytest.mark.parametrize(("total", "lines"), [(999, 0), (1000, 10)])
def test_off_a_terminal_an_import_of_a_thousand_files_gets_a_line_a_tenth(monkeypatch, total, lines):
    _clock(monkeypatch, [0.0] + [i / 100 for i in range(1, total + 1)])
    out = io.StringIO()
    progress = ImportProgress(out)
    for done in range(1, total + 1):
        progress(done, total)
    said = out.getvalue().splitlines()
    assert len(said) == lines
    assert [s.split(" files")[0] for s in said] == [f"import {n * total // 10:>5,}/{total:,}" for n in range(1, 11)][
        :lines
    ]


@pytest.mark.parametrize(
    ("done", "total", "elapsed", "said"),
    [
        (10, 1000, 0.59, "import    10/1,000 files  [....................]   1%  17 files/s  58 s left"),
        (100, 700, 10.0, "import 100/700 files  [##..................]  14%  10 files/s  1 min 00 s left"),
        (700, 700, 3.5, "import 700/700 files  [####################] 100%  200 files/s  0 s left"),
        (0, 0, 0.0, "import 0/0 files  [####################] 100%  0 files/s  0 s left"),
    ],
)
def test_the_line_at_its_edges(done, total, elapsed, said):
    assert line(done, total, elapsed) == said
