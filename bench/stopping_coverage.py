"""How often does a point stopped as "known to ±2%" miss its true mean by more than 2%? (issue 22)

No fio: iolab's rule (`iolab.analysis.stopping.decide`, as the runner asks
it once a second, ±2%, at least 3 s, at most 60 s) replayed on simulated
per-second rates, white noise around a known mean at several per-second
coefficients of variation. For each: the median second a point stops, and
the share of stopped points whose kept seconds' mean is more than 2% from
the true one. A 95% interval held to ±2% would miss about 5% of the time;
deciding every second on the shortest window that looks narrow misses more
(the cost of looking repeatedly). Writes bench/results/stopping_coverage.json.

    .venv/bin/python bench/stopping_coverage.py [--series 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
from pathlib import Path

from results_file import add_smoke_flag, write_result

RESULT = Path(__file__).parent / "results" / "stopping_coverage.json"
TARGET = 0.02


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=300)
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.series = 3
    from iolab.analysis.stopping import decide

    rows = []
    for cv in (0.005, 0.01, 0.02, 0.03, 0.05, 0.10):
        stops, misses, met = [], 0, 0
        for seed in range(args.series):
            rng = random.Random(seed)
            values = [1000 * (1 + rng.gauss(0, cv)) for _ in range(60)]
            for n in range(1, 61):
                decision = decide(values[:n], TARGET, 3, 60)
                if decision.stop:
                    stops.append(n)
                    if decision.reason == "target met":
                        met += 1
                        kept = values[decision.discarded : n]
                        misses += abs(statistics.mean(kept) / 1000 - 1) > TARGET
                    break
        row = {
            "per_second_cov": cv,
            "median_stop_s": statistics.median(stops),
            "target_met_share": met / args.series,
            "missed_by_more_than_target": misses / met if met else None,
        }
        rows.append(row)
        missed = "n/a" if row["missed_by_more_than_target"] is None else f"{row['missed_by_more_than_target']:.1%}"
        print(
            f"per-second CoV {cv:5.1%}: stops at {row['median_stop_s']:4.1f} s (median), target met in "
            f"{row['target_met_share']:.0%}, of those {missed} more than ±2% from the true mean"
        )
    write_result(
        RESULT,
        "stopping_coverage",
        {
            "rule": {"target_ci": TARGET, "min_s": 3, "max_s": 60},
            "series_per_cov": args.series,
            "rows": rows,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
