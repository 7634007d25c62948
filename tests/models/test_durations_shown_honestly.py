"""A duration is shown within 5% of itself and a positive one never as "0 s" (`models.units.duration`):
`run_remote` said an ssh timeout of half a second was "0 s", since every duration in a message was printed
in whole seconds (`{timeout_s:.0f} s`) and `units.duration` rounded 150 s to "2 min". The property is
checked over durations from 0.1 ms to 12 days, and every whole-unit duration format left in `src/` is one
listed here with why it cannot mislead. The timeouts' own messages under a second: `run_remote` in
tests/cluster/test_remote_commands_each_outcome.py and test_reaching_hosts.py, fio's in
tests/fio/test_run_bounds.py."""

from __future__ import annotations

import math
import re
from pathlib import Path

from iolab.models import units

SCALE = {"s": 1.0, "min": 60.0, "h": 3600.0}
SRC = Path(__file__).resolve().parents[2] / "src" / "iolab"
WHOLE_UNITS = re.compile(r"\{[^{}]*:[,]?\.0f\}\s?(?:s|min|h)\b")
# Where a whole-unit format stays, and why it cannot show a positive duration as 0 or far from itself.
ALLOWED = {
    "models/units.py": "the formatter itself: whole units only from ten of them",
    "doctor/rules/recurring.py": "onsets and their gaps fall on the sampler's one-second grid",
    "doctor/rules/telemetry.py": "onsets and lengths of dips, counted in the sampler's one-second samples",
    "report/html.py": "a dip's onset: a place on the run's timeline, not a length",
    "runner/execute.py": "an estimate ('about'), of points of at least a second each",
    "report/terminal.py": "an estimate ('about'), of points of at least a second each",
    "runner/blank.py": "an estimate of the time left ('about'), said again every few seconds",
    "cli/import_progress.py": "an estimate of the time left, redrawn many times a second",
}


def _read_back(text: str) -> float:
    value, unit = text.split()
    return float(value) * SCALE[unit]


def _durations() -> list[float]:
    """Log-spaced from 0.1 ms to 12 days, plus every place where the format changes its unit or digits."""
    spread = [10 ** (exponent / 37) for exponent in range(-4 * 37, 6 * 37)]
    edges = [edge * factor for edge in (1, 10, 120, 600, 3600) for factor in (1 - 1e-9, 1, 1 + 1e-9)]
    return spread + edges + [0.5, 0.05, 149.9, 150, 0.0004]


def test_every_duration_reads_back_within_five_percent_and_a_positive_one_never_as_zero():
    for seconds in _durations():
        text = units.duration(seconds)
        assert not re.search(r"\de", text), text  # no exponent
        assert math.isclose(_read_back(text), seconds, rel_tol=0.05), (seconds, text)
        assert _read_back(text) > 0, (seconds, text)
    assert [units.duration(s) for s in (0, 0.5, 4.24, 59.4, 150, 900, 5400)] == [
        "0 s", "0.5 s", "4.2 s", "59 s", "2.5 min", "15 min", "1.5 h",
    ]  # fmt: skip


def test_a_whole_unit_duration_format_is_left_only_where_it_cannot_mislead():
    found = {
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*.py"))
        if WHOLE_UNITS.search(path.read_text(encoding="utf-8"))
    }
    assert found == set(ALLOWED), "format durations with models.units.duration, or say here why not"
