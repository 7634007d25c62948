"""How often does a point stopped as "known" hold its true mean? (issues 22 and 35)

No fio: iolab's rule (the runner's for a 60 s reading job, asked once a
second as the runner asks it: `stopping_product.first_stop`) replayed on simulated
per-second rates: white noise around a known mean at several per-second
coefficients of variation, and a rate that wanders over tens of seconds
(an AR(1) level with a 20 s time constant and 2% of the mean, under 4%
per-second scatter), whose reference is the mean of its whole 60 s (the
same point run to its full length). For each: the median second a point
stops, the share of series stopped as known, and of those the share whose
stated 95% interval holds the reference and the share more than 2% from it.
Writes bench/results/stopping_coverage.json.

    .venv/bin/python bench/stopping_coverage.py [--series 300]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Callable
from pathlib import Path

from results_file import add_smoke_flag, write_result

RESULT = Path(__file__).parent / "results" / "stopping_coverage.json"
SECONDS = 60


def white(cv: float) -> Callable[[random.Random], tuple[list[float], float]]:
    return lambda rng: ([1000 * (1 + rng.gauss(0, cv)) for _ in range(SECONDS)], 1000.0)


def wandering(rng: random.Random) -> tuple[list[float], float]:
    """An AR(1) level (20 s time constant, 2% of the mean) under 4% per-second scatter; its whole mean."""
    level, values = rng.gauss(0, 0.02), []
    for _ in range(SECONDS):
        level = 0.95 * level + rng.gauss(0, 0.02 * math.sqrt(1 - 0.95**2))
        values.append(1000 * (1 + level + rng.gauss(0, 0.04)))
    return values, statistics.fmean(values)


def replay(make: Callable[[random.Random], tuple[list[float], float]], series: int) -> dict:
    """The runner's rule for a 60 s reading job (`stopping_product.first_stop`) on `series` series of `make`."""
    from stopping_product import first_stop

    stops, known, held, missed = [], 0, 0, 0
    for seed in range(series):
        values, reference = make(random.Random(seed))
        found = first_stop(values, False)
        if not found.stopped:
            continue
        n, decision = found.stop_s, found.decision
        stops.append(n)
        if decision.reason == "target met" and decision.interval is not None:
            kept = statistics.fmean(values[decision.discarded : n])
            known += 1
            held += abs(kept - reference) <= decision.interval.half_width
            missed += abs(kept / reference - 1) > found.rule.target
    return {
        "median_stop_s": statistics.median(stops) if stops else None,
        "target_met_share": known / series,
        "interval_holds": held / known if known else None,
        "missed_by_more_than_target": missed / known if known else None,
    }


def _rule() -> dict:
    """The rule replayed, as the product gives it for a job of `SECONDS`."""
    from stopping_product import product_rule

    rule = product_rule(SECONDS)
    return {"target_ci": rule.target, "min_s": rule.min_s, "max_s": rule.cap, "horizon_s": rule.horizon}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=300)
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.series = 3
    cases = [(f"white noise, per-second CoV {cv:.1%}", white(cv)) for cv in (0.005, 0.01, 0.02, 0.03, 0.05, 0.10)]
    cases.append(("wander over tens of seconds (AR 20 s, 2%) under 4% scatter", wandering))
    rows = []
    for name, make in cases:
        row = {"series": name, **replay(make, args.series)}
        rows.append(row)
        holds = "n/a" if row["interval_holds"] is None else f"{row['interval_holds']:.1%}"
        missed = "n/a" if row["missed_by_more_than_target"] is None else f"{row['missed_by_more_than_target']:.1%}"
        print(
            f"{name}: median stop {row['median_stop_s']} s, known in {row['target_met_share']:.0%}; of those the "
            f"interval holds the reference in {holds}, {missed} more than ±2% from it",
            flush=True,
        )
    write_result(
        RESULT,
        "stopping_coverage",
        {"rule": _rule(), "series_per_case": args.series, "rows": rows},
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
