"""What a stop decision's level evidence costs: `analysis.stopping.trace_wander` on runs of 300, 1,800 and 7,200 s

`trace_wander` is asked at every stop decision, once a second, on the kept seconds so far. It takes the variogram
of 5 s block means by prefix sums and an FFT autocovariance; the variogram taken lag by lag (the definition,
`tests/analysis/test_trace_wander_fast.by_definition`, how it was computed before) cost O(blocks²). Both are
timed here on generated random-walk traces (the level of `LEVEL` a second under 0.2% white scatter), each the
median of `--repeats` calls, best of three such medians, and their figures compared (the largest difference
relative to the larger of the figure and `LEVEL`). The host's load average is recorded beside them.
Writes bench/results/trace_wander_cost.json.

    .venv/bin/python bench/trace_wander_cost.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from results_file import add_smoke_flag, host, write_result

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tests.analysis
from iolab.analysis.stopping import LEVEL, trace_wander
from tests.analysis.test_trace_wander_fast import by_definition

RESULT = Path(__file__).parent / "results" / "trace_wander_cost.json"
SECONDS = (300, 1_800, 7_200)


def walk(seconds: int, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    level, out = 1.0, []
    for _ in range(seconds):
        level += rng.gauss(0, math.sqrt(LEVEL))
        out.append(1e5 * level * (1 + rng.gauss(0, 0.002)))
    return out


def cost_ms(function: Callable[[list[float]], float], values: list[float], repeats: int) -> float:
    """Milliseconds a call: the best of three medians of `repeats` calls (a shared host's other work inflates
    single calls)."""
    medians = []
    for _ in range(3):
        calls = []
        for _ in range(repeats):
            started = time.perf_counter()
            function(values)
            calls.append(time.perf_counter() - started)
        medians.append(statistics.median(calls))
    return min(medians) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="calls a median")
    add_smoke_flag(parser)
    args = parser.parse_args()
    seconds = (300, 1_800) if args.smoke else SECONDS
    repeats = 2 if args.smoke else args.repeats
    load_before = os.getloadavg()
    rows = []
    for length in seconds:
        values = walk(length)
        fast, defined = trace_wander(values), by_definition(values)
        rows.append(
            {
                "seconds": length,
                "fast_ms": cost_ms(trace_wander, values, repeats),
                "by_definition_ms": cost_ms(by_definition, values, max(1, repeats // 4)),
                "figure": fast,
                "difference": abs(fast - defined) / max(defined, LEVEL),
            }
        )
    for row in rows:
        print(
            f"{row['seconds']:>6,} s: trace_wander {row['fast_ms']:.2f} ms a decision, the variogram lag by lag"
            f" {row['by_definition_ms']:.1f} ms; figures differ by {row['difference']:.1e} (of the larger of"
            f" the figure and LEVEL)"
        )
    load_after = os.getloadavg()
    print(f"load average before {load_before}, after {load_after}")
    figures = {"host": host(), "load_average_before": load_before, "load_average_after": load_after, "runs": rows}
    write_result(RESULT, "trace_wander_cost", figures, smoke=args.smoke)


if __name__ == "__main__":
    main()
