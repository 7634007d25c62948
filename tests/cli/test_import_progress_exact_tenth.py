"""The terminal's progress line redrawn exactly a tenth of a second after the last, and first drawn exactly at
the first second (issue 41: the bounds test's clock readings never differed by exactly 0.1 in binary, 1.1 - 1.0
being above it and 0.6 - 0.5 below, so `>=` turned into `>` passed it). Readings whose differences are exact
binary 0.1 and 1.0 (0.1 - 0.0, 0.2 - 0.1, 0.1 - -0.9) hold both edges; the clock is monotonic with any origin."""

from __future__ import annotations

import io

from iolab.cli import import_progress
from iolab.cli.import_progress import ImportProgress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_redraw_is_due_exactly_a_tenth_after_the_last_and_the_first_exactly_at_one_second(monkeypatch):
    assert 0.1 - -0.9 == 1.0 and 0.1 - 0.0 == 0.1 and 0.2 - 0.1 == 0.1  # the readings' exact differences
    moments = iter([-0.9, 0.1, 0.19, 0.2])
    monkeypatch.setattr(import_progress.time, "monotonic", lambda: next(moments))
    out = _Terminal()
    progress = ImportProgress(out)
    for done in range(1, 4):
        progress(done, 10)
    drawn = [part.split(" files")[0] for part in out.getvalue().split("\r")[1:]]
    assert drawn == ["import  1/10", "import  3/10"]
