"""What does counting hardware events with `perf stat -a` cost a CPU-bound fio job?

fio reads 4 KiB blocks at random from a file in /dev/shm with psync: every I/O is a system call and a
memory copy, so any time perf takes from the CPUs shows up in fio's IOPS directly. Runs alternate
without and with perf counting (ABBA, so drift hits both sides alike), perf started and stopped exactly
as iolab does it (`iolab.runner.side.SideFigures`: under fio's keeper, from just before fio starts,
printing its counts every `iolab.telemetry.perf.INTERVAL_MS`, stopped by SIGINT), and the median of the with/without ratios is reported. Target: >= 0.99. Beside the IOPS,
fio's own CPU time per I/O (usr + sys over its I/O rate) on/off: on a shared host other processes take
fio's CPU away and move its IOPS a lot, but hardly what each I/O costs the CPU it does get, which is
where counting would show.

perf counts the events iolab asks for (cycles, cache-references, cache-misses) where this host can count
them. Where it cannot (a VM without a virtual PMU: perf says `<not supported>`), iolab does not start perf
at all, so it costs nothing; this script then measures software events (cpu-clock, context-switches)
instead, the nearest thing perf can count there, and says so in the result. Writes
bench/results/perf_overhead.json.

    .venv/bin/python bench/perf_overhead.py [--pairs 6] [--runtime 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from results_file import add_smoke_flag, write_result

from iolab.models import Point, Target
from iolab.runner.side import SideFigures
from iolab.telemetry.perf import EVENTS, perf_problem

RESULT = Path(__file__).parent / "results" / "perf_overhead.json"
SOFTWARE_EVENTS = ("cpu-clock", "context-switches")
RAMP_S = 1


def fio_run(fio: str, path: Path, runtime_s: int) -> tuple[float, float]:
    """(IOPS, CPU µs per I/O) of one 4 KiB random-read psync job on a tmpfs file, after a 1 s ramp."""
    argv = [
        fio,
        "--name=tmpfs",
        f"--filename={path}",
        "--size=256m",
        "--ioengine=psync",
        "--rw=randread",
        "--bs=4k",
        "--time_based",
        f"--ramp_time={RAMP_S}",
        f"--runtime={runtime_s}",
        "--output-format=json",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"fio exited {done.returncode}: {done.stderr.strip()[-300:]}")
    job = json.loads(done.stdout)["jobs"][0]
    iops = float(job["read"]["iops"])
    return iops, (job["usr_cpu"] + job["sys_cpu"]) / 100 / iops * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--runtime", type=int, default=3, help="measured seconds per fio run")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.pairs, args.runtime = 1, 1
    fio, perf = shutil.which("fio"), shutil.which("perf")
    if fio is None or perf is None:
        raise SystemExit("needs fio and perf (apt-get install fio linux-perf)")
    hardware_problem = perf_problem(perf, EVENTS)
    events = EVENTS if hardware_problem is None else SOFTWARE_EVENTS
    if perf_problem(perf, events) is not None:
        raise SystemExit(f"perf cannot count here: {perf_problem(perf, events)}")
    side = SideFigures(local=True, telemetry_off=False, note=print, events=events, perf=perf)
    point = Point("tmpfs", Target("/dev/shm", "directory", "", 0), {"ramp_time": str(RAMP_S)})

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(dir="/dev/shm", prefix="iolab-perf-bench-") as tmp:
        path = Path(tmp) / "data"
        fio_run(fio, path, 1)  # lays the file out and warms caches and CPU frequency
        pairs, windows = [], []
        for i in range(args.pairs):
            runs: dict[str, tuple[float, float]] = {}
            for mode in ("off", "on") if i % 2 == 0 else ("on", "off"):
                if mode == "on":
                    side.start(point, Path(tmp))
                    runs[mode] = fio_run(fio, path, args.runtime)
                    counted = side.stop()
                    windows.append(counted.intervals[-1].end_s if counted and counted.intervals else 0.0)
                else:
                    runs[mode] = fio_run(fio, path, args.runtime)
            (off, off_us), (on, on_us) = runs["off"], runs["on"]
            pairs.append(
                {
                    "off_iops": off,
                    "on_iops": on,
                    "ratio": on / off,
                    "off_cpu_us_per_io": off_us,
                    "on_cpu_us_per_io": on_us,
                    "cpu_per_io_ratio": on_us / off_us,
                }
            )
            print(
                f"pair {i + 1}: off {off:,.0f}  on {on:,.0f}  ratio {on / off:.4f}; "
                f"CPU µs/IO off {off_us:.3f} on {on_us:.3f} ratio {on_us / off_us:.4f}"
            )

    ratios = [p["ratio"] for p in pairs]
    offs = [p["off_iops"] for p in pairs]
    off_cov = statistics.stdev(offs) / statistics.mean(offs) if len(offs) > 1 else float("inf")
    result = {
        "benchmark": "perf_overhead",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": {"kernel": platform.release(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "workload": f"fio ioengine=psync rw=randread bs=4k on a 256 MiB file in /dev/shm, ramp {RAMP_S} s, "
        f"runtime {args.runtime} s",
        "perf": {
            "events_counted": list(events),
            "hardware_events": list(EVENTS),
            "hardware_events_here": "countable" if hardware_problem is None else hardware_problem,
            "counted_s": windows,  # perf's whole run each time; iolab's figures take fio's measured part
        },
        "pairs": pairs,
        "median_ratio": statistics.median(ratios),
        "min_ratio": min(ratios),
        "median_cpu_per_io_ratio": statistics.median(p["cpu_per_io_ratio"] for p in pairs),
        "target": 0.99,
        "off_iops_cov": off_cov,
        "ab_verdict": (
            "inconclusive: host noise" if off_cov > 0.01 else "pass" if statistics.median(ratios) >= 0.99 else "fail"
        ),
        "wall_seconds": time.perf_counter() - started,
    }
    write_result(RESULT, "perf_overhead", result, smoke=args.smoke)
    print(
        f"perf counting {', '.join(events)}: median on/off ratio {result['median_ratio']:.4f} "
        f"(min {result['min_ratio']:.4f}); off-run CoV {off_cov:.1%}; A/B verdict: {result['ab_verdict']}; "
        f"fio CPU per I/O on/off: median {result['median_cpu_per_io_ratio']:.4f}"
    )
    if hardware_problem is not None:
        print(f"hardware events not counted here ({hardware_problem}): iolab starts no perf on this host")


if __name__ == "__main__":
    main()
