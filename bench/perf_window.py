"""How far were perf's figures from fio's measured seconds, and where are they now?

Before, `perf stat -a` counted from the end of fio's ramp on perf's own clock (`--delay`) until iolab stopped it
after fio exited, and cycles per I/O were divided by that duration: fio's start-up (its file layout, its own
set-up) and its exit were inside every count. Now perf prints its counts every 250 ms and only fio's measured
seconds are summed (`iolab.telemetry.perf.Counted.over`), the window every other side figure is read over.

This host has no hardware counters, so cycles cannot be counted here; the host's busy CPU time (the samplers'
`cpu.busy`, read every 0.1 s) stands in for them: -a cycles are what the busy CPUs execute, so at one clock
rate a window's cycles are its busy CPU-seconds times that rate. For each real fio run (perf and the samplers
started and stopped as the runner does) it reads both windows on the samplers' clock and reports:

- the seconds the old window counted before the measured ones (fio's start-up, or the ramp's last part) and after
  them (fio's exit, until perf was stopped);
- cycles per I/O as the old window gave them over the new one's: (busy CPU-s / s over the old window) over
  (busy CPU-s / s over the measured seconds), 1.0 where they agree.

Bins: a CPU-bound job (psync 4 KiB random reads of a /dev/shm file) and a light one (the same capped at 2,000
I/O a second) x ramp 0 or 1 s x 2 or 5 s measured; each run lays its 256 MiB file out first, as a plan's first
point on a new target does. The busy time is the whole host's, other work included (as perf -a counts it): on a
host whose CPUs other work keeps busy, both windows read near 1 and the difference shrinks. Nothing is chosen from these figures (the interval was chosen on perf's own CPU
cost: `iolab.telemetry.perf.INTERVAL_MS`). Writes bench/results/perf_window.json.

    .venv/bin/python bench/perf_window.py [--repeats 4]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from results_file import add_smoke_flag, write_result

from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, Sample, Target
from iolab.models.side import measured_from_ms, measured_until_ms
from iolab.runner.measure import _fio_startup
from iolab.runner.side import SideFigures
from iolab.telemetry import Sampler
from iolab.telemetry.perf import Counted, Interval

RESULT = Path(__file__).parent / "results" / "perf_window.json"
WORKLOADS = {"cpu-bound": {}, "light (2,000 IOPS)": {"rate_iops": "2000"}}
SAMPLE_S = 0.1


def busy_series(samples: list[Sample], clock_ms: float) -> Counted:
    """The host's busy CPU-seconds per sampler interval as a series `Counted.over` cuts like perf's."""
    cpus = len({s.source for s in samples if s.metric == "cpu.busy" and s.source != "cpu"})
    intervals, previous = [], 0
    for s in sorted((s for s in samples if s.metric == "cpu.busy" and s.source == "cpu"), key=lambda s: s.t_ms):
        length_s = (s.t_ms - previous) / 1000
        intervals.append(Interval(previous / 1000, s.t_ms / 1000, {"busy": s.value / 100 * cpus * length_s}))
        previous = s.t_ms
    return Counted(tuple(intervals), clock_ms, clock_ms)


def busy_rate(busy: Counted, start_ms: float, end_ms: float) -> float:
    counts, seconds = busy.over(start_ms, end_ms)
    return (counts.get("busy") or 0.0) / seconds if seconds > 0 else 0.0


def one_run(fio: str, directory: Path, options: dict[str, str]) -> dict[str, float]:
    scratch = directory / "data"
    point = Point("p", Target(str(directory), "file", str(scratch), 256 << 20), options)
    side = SideFigures(local=True, telemetry_off=False, note=print, events=("cpu-clock",))
    argv = [
        fio,
        "--name=p",
        f"--filename={scratch}",
        "--output-format=json",
        *(f"--{k}={v}" for k, v in options.items()),
    ]
    side.start(point, directory)
    sampler = Sampler(interval_s=SAMPLE_S, cpu=True)
    sampler.start()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    counted = side.stop()
    sampler.stop()
    scratch.unlink(missing_ok=True)
    if done.returncode != 0 or counted is None or not counted.intervals:
        raise SystemExit(f"fio or perf failed: {done.stderr.strip()[-300:]}")
    parsed = parse_output(done.stdout)
    result = aggregate([e for group in parsed.groups for e in group.entries])
    samples = sampler.samples()
    startup = _fio_startup(samples, sampler.started_ms, parsed, point) or 0
    clock = sampler.started_ms
    new = (clock + measured_from_ms(point, result, startup), clock + measured_until_ms(point, result, startup))
    # the old command: counting from perf's zero plus the ramp (its --delay) until it was stopped
    old = (counted.zero_ms + point.job.ramp_seconds * 1000, counted.zero_ms + counted.intervals[-1].end_s * 1000)
    busy = busy_series(samples, clock)
    return {
        "startup_s": startup / 1000,
        "measured_s": (new[1] - new[0]) / 1000,
        "old_window_s": (old[1] - old[0]) / 1000,
        "old_before_s": (new[0] - old[0]) / 1000,  # counted before the measured seconds (negative: missed)
        "old_after_s": (old[1] - new[1]) / 1000,  # counted after them: fio's exit, until perf was stopped
        "old_over_new_cycles_per_io": busy_rate(busy, *old) / busy_rate(busy, *new),
        "perf_zero_after_launch_ms": counted.zero_ms - counted.launched_ms,
    }


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=4, help="runs per bin")
    add_smoke_flag(parser)
    args = parser.parse_args()
    fio = shutil.which("fio")
    if fio is None or shutil.which("perf") is None:
        raise SystemExit("needs fio and perf (apt-get install fio linux-perf)")
    bins = [(w, ramp, runtime) for w in WORKLOADS for ramp in (0, 1) for runtime in (2, 5)]
    if args.smoke:
        bins, args.repeats = [("light (2,000 IOPS)", 0, 1)], 1
    figures = []
    with tempfile.TemporaryDirectory(dir="/dev/shm", prefix="iolab-perf-window-") as tmp:
        for workload, ramp, runtime in bins:
            options = {"rw": "randread", "bs": "4k", "ioengine": "psync", "size": "256m", "time_based": "1"}
            options |= {"ramp_time": str(ramp), "runtime": str(runtime), **WORKLOADS[workload]}
            runs = [one_run(fio, Path(tmp), options) for _ in range(args.repeats)]
            row = {"workload": workload, "ramp_s": ramp, "runtime_s": runtime, "n": len(runs)}
            row |= {key: summary([r[key] for r in runs]) for key in runs[0]}
            figures.append(row)
            ratio = row["old_over_new_cycles_per_io"]
            print(
                f"{workload:20} ramp {ramp} s, {runtime} s: old window {row['old_window_s']['median']:.2f} s, "
                f"{row['old_before_s']['median']:.2f} s before and {row['old_after_s']['median']:.2f} s after the "
                "measured seconds; cycles/IO old/new median "
                f"{ratio['median']:.3f} ({ratio['min']:.3f}-{ratio['max']:.3f}, n {len(runs)})"
            )
    write_result(
        RESULT,
        "perf_window",
        {"host_cpus": os.cpu_count(), "load_average_at_end": os.getloadavg(), "sample_s": SAMPLE_S, "bins": figures},
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
