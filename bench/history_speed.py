"""How long does the history analysis of a long series take?

10,000 hourly runs (over a year) with 3% multiplicative noise, two steps
(-14% and -17%, like the Lustre seed's mitigation and checksum changes) and a
few failed runs recorded as zero; change points plus rolling 48 h health.
The time includes importing numpy and the analysis modules, in a fresh
process, because that is what a user waits for. Target: under 1 s.
Writes bench/results/history_speed.json.

    .venv/bin/python bench/history_speed.py [--points 10000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from results_file import add_smoke_flag, write_result

RESULT = Path(__file__).parent / "results" / "history_speed.json"
STEPS = {0.35: 0.86, 0.7: 0.83}  # fraction of the series where a step starts: factor


def one_pass(points: int, seed: int) -> dict:
    """Runs in a child process: import, synthesise, analyse; returns the timings and what was found."""
    start = time.perf_counter()
    import numpy as np

    from iolab.analysis.history import change_points, rolling_health

    imported = time.perf_counter()
    rng = np.random.default_rng(seed)
    values = 20e9 * (1.0 + 0.03 * rng.standard_normal(points))
    for fraction, factor in STEPS.items():
        values[int(fraction * points) :] *= factor
    values[rng.choice(points, size=max(1, points // 500), replace=False)] = 0.0  # failed runs
    times = 1.7e9 + 3600.0 * np.arange(points)
    made = time.perf_counter()
    found = change_points(values)
    found_at = time.perf_counter()
    health = rolling_health(times, values)
    done = time.perf_counter()
    return {
        "import_s": imported - start,
        "change_points_s": found_at - made,
        "rolling_health_s": done - found_at,
        "total_s": (imported - start) + (done - made),
        "change_points": [{"index": c.index, "relative_change": c.relative_change} for c in found],
        "expected_steps": [int(f * points) for f in STEPS],
        "unhealthy_points": sum(p.state == "unhealthy" for p in health),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.points, args.repeats = 200, 1
    if args.child is not None:
        print(json.dumps(one_pass(args.points, args.child)))
        return
    passes = []
    for seed in range(args.repeats):
        out = subprocess.run(
            [sys.executable, __file__, "--points", str(args.points), "--child", str(seed)],
            capture_output=True,
            text=True,
            check=True,
        )
        passes.append(json.loads(out.stdout))
    totals = sorted(p["total_s"] for p in passes)
    result = {
        "benchmark": "history_speed",
        "points": args.points,
        "repeats": args.repeats,
        "median_total_s": totals[len(totals) // 2],
        "max_total_s": totals[-1],
        "median_import_s": sorted(p["import_s"] for p in passes)[len(passes) // 2],
        "median_change_points_s": sorted(p["change_points_s"] for p in passes)[len(passes) // 2],
        "median_rolling_health_s": sorted(p["rolling_health_s"] for p in passes)[len(passes) // 2],
        "target_s": 1.0,
        "passes": passes,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    write_result(RESULT, "history_speed", result, smoke=args.smoke)
    print(
        f"{args.points} points: median {result['median_total_s']:.3f} s (max {result['max_total_s']:.3f} s) including "
        f"imports {result['median_import_s']:.3f} s; change points {result['median_change_points_s']:.3f} s, "
        f"rolling health {result['median_rolling_health_s']:.3f} s"
    )
    for p in passes:
        print("  found", [c["index"] for c in p["change_points"]], "expected", p["expected_steps"])


if __name__ == "__main__":
    main()
