"""How close is `iolab run --dry-run`'s estimate to the real wall time? (issue: plans)

A 6-point plan (randread/read x 3 queue depths, 3 s each plus a 1 s ramp)
on a scratch file: the dry run's estimate against the measured wall time of
the real run, telemetry on. Goal: within 15%. Writes
bench/results/dryrun_accuracy.json.

    .venv/bin/python bench/dryrun_accuracy.py [--runtime 3]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import add_smoke_flag, write_result

RESULT = Path(__file__).parent / "results" / "dryrun_accuracy.json"
PLAN = """
name = "six"
[options]
ioengine = "libaio"
time_based = true
runtime = "{runtime}s"
ramp_time = "1s"
[axes]
rw = ["randread", "read"]
iodepth = {depths}
bs = ["4k"]
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", type=int, default=3)
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.runtime = 1
    with tempfile.TemporaryDirectory(prefix="iolab-bench-", dir="/var/tmp") as work:
        plan = Path(work) / "six.toml"
        plan.write_text(PLAN.format(runtime=args.runtime, depths="[1]" if args.smoke else "[1, 4, 16]"))
        env = {**os.environ, "IOLAB_HOME": str(Path(work) / "home")}
        base = [sys.executable, "-m", "iolab", "run", str(plan), work, "--size", "512M"]
        dry = subprocess.run(base + ["--dry-run"], capture_output=True, text=True, env=env, check=True)
        match = re.search(r"([\d,]+) points?, estimated ([\d.]+) (s|min|h)\b", dry.stderr)  # as units.duration
        if not match:
            raise SystemExit(f"no estimate in: {dry.stderr[-300:]}")
        estimate = float(match[2]) * {"s": 1, "min": 60, "h": 3600}[match[3]]
        started = time.perf_counter()
        subprocess.run(base + ["--quiet"], capture_output=True, text=True, env=env, check=True)
        wall = time.perf_counter() - started
    error = estimate / wall - 1
    print(f"{match[1]} points: estimated {estimate:.0f} s, took {wall:.1f} s ({error:+.1%}; goal within 15%)")
    write_result(
        RESULT,
        "dryrun_accuracy",
        {
            "points": int(match[1]),
            "runtime_s": args.runtime,
            "estimate_s": estimate,
            "wall_s": wall,
            "relative_error": error,
            "goal": 0.15,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
