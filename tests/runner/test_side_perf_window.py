"""perf's figures of a point (runner.side.SideFigures.figures): cycles per I/O are perf's cycles over the I/O
done in perf's own window, its duration_time (nanoseconds) read as seconds; the LLC hit rate from its cache
counts; a count of no window gives no cycles figure and says why."""

from __future__ import annotations

import pytest

from iolab.models import DirectionResult, Point, Result, Target
from iolab.models.side import CYCLES_PER_IO, LLC_HIT_PCT, PERF
from iolab.runner.side import SideFigures

POINT = Point("p", Target("/dev/x", "block", "/dev/x", 1 << 30), {"rw": "randread"})
# 100,000 IOPS read
RESULT = Result({"read": DirectionResult("read", 4e8, 1e5, 100000, 4 * 10**8, 1000)}, 10.0, 20.0, 1, "")


def _perf(counts: dict[str, float | None]) -> dict[str, float | None]:
    side = SideFigures(local=True, telemetry_off=True, note=lambda _: None, perf="/usr/bin/perf")
    return {m.name: m.value if m.value is not None else m.problem for m in side.figures(POINT, RESULT, [], counts)}


def test_cycles_per_io_are_over_perfs_own_window():
    counts = {"cycles": 6e9, "cache-references": 4e6, "cache-misses": 1e6, "duration_time": 2.5e9}  # 2.5 s
    figures = _perf(counts)
    assert figures[CYCLES_PER_IO] == pytest.approx(6e9 / (1e5 * 2.5))  # 24,000 cycles an I/O
    assert figures[LLC_HIT_PCT] == pytest.approx(75.0)


def test_no_window_gives_no_cycles_figure():
    figures = _perf({"cycles": 6e9, "cache-references": 0.0, "cache-misses": 0.0, "duration_time": None})
    assert CYCLES_PER_IO not in figures and figures[PERF] == "no I/O in perf's window"
