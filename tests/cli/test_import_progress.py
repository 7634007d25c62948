"""The progress line of a long import: quiet for small imports off a terminal, files/s and time left otherwise."""

from __future__ import annotations

import io

from iolab.cli import import_progress
from iolab.cli.import_progress import ImportProgress, line


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _clock(monkeypatch, times: list[float]) -> None:
    moments = iter(times)
    monkeypatch.setattr(import_progress.time, "monotonic", lambda: next(moments))


def test_a_small_import_off_a_terminal_prints_nothing():
    out = io.StringIO()
    progress = ImportProgress(out)
    for done in range(1, 51):
        progress(done, 50)
    progress.close()
    assert out.getvalue() == ""


def test_a_large_import_off_a_terminal_prints_a_line_at_each_tenth(monkeypatch):
    _clock(monkeypatch, [0.0] + [i / 100 for i in range(1, 2001)])
    out = io.StringIO()
    progress = ImportProgress(out)
    for done in range(1, 2001):
        progress(done, 2000)
    lines = out.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[-1].startswith("import 2,000/2,000 files") and "100 files/s" in lines[-1] and "0 s left" in lines[-1]


def test_on_a_terminal_the_line_is_rewritten_from_the_second_second_and_ended_at_close(monkeypatch):
    _clock(monkeypatch, [0.0, 0.5, 2.0, 2.05, 4.0])
    out = _Terminal()
    progress = ImportProgress(out)
    progress(1, 4)  # at 0.5 s: too early to show
    progress(2, 4)  # at 2 s: shown
    progress(3, 4)  # 50 ms later: not redrawn
    progress(4, 4)  # the last: always drawn
    progress.close()
    text = out.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n")
    assert "import 2/4 files" in text and "import 4/4 files" in text


def test_the_line_says_rate_and_time_left():
    assert line(300, 1200, 10.0) == "import   300/1,200 files  [#####...............]  25%  30 files/s  30 s left"
    assert "1 min 30 s left" in line(100, 1000, 10.0)
