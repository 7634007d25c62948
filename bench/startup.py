"""Start-up: `iolab --help`, and `iolab ls` on a database of 10,000 runs (issue: benchmarks).

Each command runs in a fresh process (Python start and imports included),
median of 7. The 10,000-run store is the one bench/history_cli_speed.py
builds (real schema, real host snapshots). Goals: --help under 0.5 s; ls
fast enough to feel instant. Writes bench/results/startup.json.

    .venv/bin/python bench/startup.py [--runs 10000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from history_cli_speed import build
from results_file import add_smoke_flag, write_result

RESULT = Path(__file__).parent / "results" / "startup.json"


REPEATS = 7


def timed(argv: list[str], env: dict[str, str], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=REPEATS, help="runs of each command (the median is kept)")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.repeats = 20, 1
    iolab = [sys.executable, "-m", "iolab"]
    with tempfile.TemporaryDirectory(prefix="iolab-bench-") as scratch:
        build(Path(scratch), args.runs)
        env = {**os.environ, "IOLAB_HOME": scratch}
        figures = {
            "help_s": timed(iolab + ["--help"], env, args.repeats),
            "ls_s": timed(iolab + ["ls"], env, args.repeats),
            "ls_all_json_s": timed(iolab + ["ls", "--limit", str(args.runs), "--json"], env, min(3, args.repeats)),
        }
    for name, seconds in figures.items():
        print(f"{name:14s} {seconds:.3f} s")
    write_result(
        RESULT,
        "startup",
        {
            "runs": args.runs,
            **figures,
            "goal_help_s": 0.5,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
