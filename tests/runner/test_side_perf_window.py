"""perf's figures of a point (runner.side.SideFigures.figures) are over fio's measured seconds, the same ones as
every other side figure: from fio's start-up and ramp (`measured_from_ms`) to the end of its runtime
(`measured_until_ms`), on the samplers' clock, whose zero is read on the wall clock perf's zero is placed on.
Cycles per I/O are the window's cycles over the I/O done in the seconds of it perf counted; the LLC hit rate is
the window's cache counts. Before, both were perf's whole run's: fio's start-up and its tail entered every count,
and the rate was over perf's own duration."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from iolab.models import DirectionResult, Point, Result, Target
from iolab.models.side import CYCLES_PER_IO, LLC_HIT_PCT, PERF
from iolab.runner.side import SideFigures
from iolab.telemetry.perf import Counted, Interval

DATA = Path(__file__).resolve().parents[1] / "data" / "perf"
POINT = Point("p", Target("/dev/x", "block", "/dev/x", 1 << 30), {"rw": "randread", "ramp_time": "2"})
# 100,000 IOPS read over fio's 3 s measured runtime, after its 2 s ramp
RESULT = Result({"read": DirectionResult("read", 4e8, 1e5, 300000, 12 * 10**8, 3000)}, 10.0, 20.0, 1, "")
CLOCK_MS = 1_700_000_000_000.0  # the samplers' zero on the wall clock
STARTUP_MS = 700  # fio's start-up on the samplers' clock: the window is 2.7 s to 5.7 s


def _counted(zero_ms: float) -> Counted:
    """perf counting from `zero_ms` (wall clock) in 0.25 s intervals for 8 s: 2.4e9 cycles a second and 3 cache
    misses in 4 references in every interval that reaches 2.7 s to 5.7 s after the samplers' zero, and 50 times
    the cycles and only misses in those wholly outside it (fio laying out its file, its tail)."""
    intervals = []
    for i in range(32):
        start, end = i * 0.25, (i + 1) * 0.25
        offset_s = (zero_ms - CLOCK_MS) / 1000
        inside = start + offset_s < 5.7 and end + offset_s > 2.7
        counts: dict[str, float | None] = {
            "cycles": 2.4e9 * 0.25 * (1 if inside else 50),
            "cache-references": 4e6 if inside else 1e6,
            "cache-misses": 3e6 if inside else 1e6,
        }
        intervals.append(Interval(start, end, counts))
    return Counted(tuple(intervals), zero_ms, zero_ms - 100)


def _figures(counted: Counted | None, clock_ms: float | None = CLOCK_MS) -> dict[str, float | str]:
    side = SideFigures(local=True, telemetry_off=True, note=lambda _: None, perf="/usr/bin/perf")
    found = side.figures(POINT, RESULT, [], counted, STARTUP_MS, clock_ms)
    return {m.name: m.value if m.value is not None else m.problem for m in found}


@pytest.mark.parametrize("zero_after_clock_ms", [-250, 0, 40, 130])  # perf's zero a quarter-interval off and on
def test_cycles_per_io_and_llc_hits_are_over_fio_s_measured_seconds_only(zero_after_clock_ms):
    figures = _figures(_counted(CLOCK_MS + zero_after_clock_ms))
    assert figures[CYCLES_PER_IO] == pytest.approx(2.4e9 / 1e5)  # 24,000 cycles an I/O
    assert figures[LLC_HIT_PCT] == pytest.approx(25.0)


def test_without_samplers_the_window_starts_at_perf_s_launch():
    """telemetry off: perf's launch, just before fio, is the zero the ramp and start-up are counted from."""
    counted = _counted(CLOCK_MS)
    launched = Counted(counted.intervals, counted.zero_ms, launched_ms=CLOCK_MS)
    assert _figures(launched, clock_ms=None)[CYCLES_PER_IO] == pytest.approx(2.4e9 / 1e5)
    early = Counted(counted.intervals, counted.zero_ms, launched_ms=CLOCK_MS - 400)
    assert _figures(early, clock_ms=None)[CYCLES_PER_IO] > 2.4e9 / 1e5  # from 0.4 s early: the layout's cycles


def test_perf_s_counts_that_do_not_reach_fio_s_seconds_say_so():
    late = Counted((Interval(0.0, 0.25, {"cycles": 1e9}),), CLOCK_MS + 9_000, CLOCK_MS + 8_900)
    assert _figures(late) == {
        "wire": "telemetry was off (--no-telemetry)",
        "host_cpu_us_per_io": "telemetry was off (--no-telemetry)",
        PERF: "perf's intervals do not reach fio's measured seconds",
    }


def _stand_in_perf(tmp_path, code: int) -> str:
    """A `perf` that answers the probe with one counted event and, counting, writes one real interval line to
    its -o file and exits `code` at once, before anyone stops it (as a perf that fails does)."""
    line = next(line for line in (DATA / "interval-sigint.csv").read_text().splitlines() if "cpu-clock" in line)
    script = tmp_path / "perf"
    script.write_text(
        "#!/bin/sh\n"
        'for a; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done\n'
        'if [ -z "$out" ]; then echo "1234,,cycles,1000,100.00,," >&2; exit 0; fi\n'
        f"echo '{line}' > \"$out\"\nexit {code}\n"
    )
    script.chmod(0o755)
    return str(script)


def test_a_perf_that_ended_before_it_was_stopped_keeps_its_launch_as_its_zero(tmp_path):
    """Its last stamp was written before the SIGINT, so the stop less that stamp says nothing of its zero: only
    a perf that ended by the signal (status 130 through the keeper, or 0) dates its zero from its stop."""
    side = SideFigures(local=True, telemetry_off=True, note=lambda _: None, perf=_stand_in_perf(tmp_path, 1))
    assert side.problem() is None
    side.start(POINT, tmp_path)
    time.sleep(0.5)  # the stand-in has exited long before this, its one stamp (0.25 s) written at once
    counted = side.stop()
    assert counted is not None and len(counted.intervals) == 1
    assert counted.zero_ms == counted.launched_ms
