#!/usr/bin/env python3
"""Writes this directory's perf output: real `perf stat -a -I` CSV for the interval tests. Nothing in it is typed.

- interval-sleep.csv: `perf stat -a -I 100 -x, -e cycles,cache-references,cache-misses,cpu-clock,duration_time
  -o interval-sleep.csv -- sleep 1`: 100 ms intervals ending where the command did.
- interval-sigint.csv: iolab's own command (`iolab.telemetry.perf.stat_command`, 250 ms intervals) started and
  stopped as the runner does (`iolab.runner.side.SideFigures`: under fio's keeper, SIGINT after 1.1 s), counting
  cycles, cache-references, cache-misses, cpu-clock and context-switches: its last interval is the short one
  perf stamps when it has the signal.

Recorded on a 2-CPU VM without a virtual PMU, so every hardware event is `<not supported>` and the software
ones count (cpu-clock: 2 CPUs' worth of milliseconds a second, idle or not). The tests read the CPU count from
RECORDED_CPUS, not from the host they run on.

    .venv/bin/python tests/data/perf/generate.py
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from iolab.models import Point, Target
from iolab.runner.side import SideFigures

HERE = Path(__file__).resolve().parent


def main() -> None:
    perf = shutil.which("perf")
    if perf is None:
        raise SystemExit("needs perf (apt-get install linux-perf)")
    events = "cycles,cache-references,cache-misses,cpu-clock,duration_time"
    argv = [perf, "stat", "-a", "-I", "100", "-x,", "-e", events, "-o", str(HERE / "interval-sleep.csv")]
    subprocess.run([*argv, "--", "sleep", "1"], check=True)
    side = SideFigures(
        local=True,
        telemetry_off=True,
        note=print,
        perf=perf,
        events=("cycles", "cache-references", "cache-misses", "cpu-clock", "context-switches"),
    )
    if side.problem() is not None:
        raise SystemExit(f"perf cannot count here: {side.problem()}")
    with tempfile.TemporaryDirectory() as tmp:
        side.start(Point("p", Target("/x", "file", "/x/f", 1 << 20), {"rw": "read"}), Path(tmp))
        time.sleep(1.1)
        side.stop()
        shutil.copy(Path(tmp) / "perf.csv", HERE / "interval-sigint.csv")


if __name__ == "__main__":
    main()
