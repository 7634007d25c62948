"""May a point that shows no per-second scatter stop sooner? Flat real points and the shipped rule (issues 35, 40)

Issue 35 asked whether a wander term that shrinks with a point's own scatter (min(W, k x CV) of a fixed
W) would be honest on real devices; it was not (flat writes end as far from their run's mean as scattered
ones), and since issue 40 the fixed terms are 0 and the drift bound, the level allowance and a writer's
minimum of 20 s stand in their place, so that grid of k would replay one rule seven times and is gone. Two
questions remain, on fio-plot's per-second traces (`bench/stopping_replay.py` reads them and splits the
points in halves by a hash of their path):

1. Flat points: of the points whose seconds 2..n+1 (the first second is fio's ramp) have a per-second
   coefficient of variation in a bin (0-0.1%, 0.1-0.2%, 0.2-0.5%, ...), how far is the mean of those n
   seconds from the mean of the whole run, the job's own length (first second set aside alike)? Reads and
   writes apart, n = 5 and 8. If flat real points end up as far away as scattered ones, flatness says
   nothing of wander. Among the flat ones (CV at most 0.5%), how well the window's own CV, lag-1
   autocorrelation and fitted change tell the points that end more than 1.5% away from the rest (AUC:
   0.5 is a coin).
2. The shipped rule on flat and other points: the runner's rule for a job as long as the trace, asked as
   the runner asks it (`stopping_product.first_stop`), on each half, reads and writes apart, flat (seconds
   2..9 within 0.5%) or not: stops as known, the share whose interval holds the whole run's mean, the
   median stop and the fio time saved. A rule that lets flat points stop sooner must keep their share.

Writes bench/results/stopping_flat.json.

    .venv/bin/python bench/stopping_flat.py PATH/TO/benchmark_data [--limit 200]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from results_file import add_smoke_flag, write_result
from stopping_replay import Trace, rule_figures, traces

RESULT = Path(__file__).parent / "results" / "stopping_flat.json"
CV_BINS = (0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, math.inf)
WINDOWS = (5, 8)


def cv(values: list[float]) -> float:
    m = statistics.fmean(values)
    return statistics.stdev(values) / m if m > 0 and len(values) > 1 else math.inf


def quantile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def windows(found: list[Trace], half: str, io: str, n: int) -> Iterator[tuple[list[float], float]]:
    """Each point of one half and direction with seconds 2..n+1 measured: that window, and how far its mean
    ends from the mean of the whole run (its first second, fio's ramp, set aside in both): the run a stop
    stands in for is the job's own length (`runner.stopping.point_rule`)."""
    for t in found:
        if t.half != half or t.writes != (io == "writes"):
            continue
        rates = t.rates
        window = rates[1 : 1 + n]
        if len(rates) < n + 2 or min(window) <= 0:
            continue
        yield window, abs(statistics.fmean(window) / statistics.fmean(rates[1:]) - 1)


def flat_table(found: list[Trace], half: str) -> dict:
    """Question 1: per reads/writes, window and CV bin, how far the window's mean ends from the whole run's mean."""
    out: dict = {}
    for io in ("reads", "writes"):
        for n in WINDOWS:
            rows = [(cv(window), away) for window, away in windows(found, half, io, n)]
            bins = {}
            for lo, hi in zip(CV_BINS, CV_BINS[1:], strict=False):
                away = [d for c, d in rows if lo <= c < hi]
                if not away:
                    continue
                bins[f"{lo:.1%}-{hi:.1%}" if hi < math.inf else f">{lo:.0%}"] = {
                    "points": len(away),
                    "median_away": statistics.median(away),
                    "p90_away": quantile(away, 0.9),
                    "p95_away": quantile(away, 0.95),
                    "more_than_1pct": sum(d > 0.01 for d in away) / len(away),
                    "more_than_1_5pct": sum(d > 0.015 for d in away) / len(away),
                    "more_than_2pct": sum(d > 0.02 for d in away) / len(away),
                }
            out[f"{io} n={n}"] = bins
    return out


FLAT_CV = 0.005
FAR = 0.015


def auc(positive: list[float], negative: list[float]) -> float | None:
    """The chance a positive's score exceeds a negative's (ties half)."""
    if not positive or not negative:
        return None
    wins = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p in positive for q in negative)
    return wins / len(positive) / len(negative)


def fitted_change(values: list[float]) -> float:
    """The least-squares line's change over the window, relative to its mean."""
    n, m = len(values), statistics.fmean(values)
    xm = (n - 1) / 2
    slope = sum((i - xm) * (v - m) for i, v in enumerate(values)) / sum((i - xm) ** 2 for i in range(n))
    return abs(slope * (n - 1) / m)


def predictors(found: list[Trace], half: str) -> dict:
    """Among flat windows (CV at most `FLAT_CV`): AUC of each in-window figure for ending more than `FAR` away."""
    from iolab.analysis.stopping import lag1

    out: dict = {}
    for io in ("reads", "writes"):
        for n in WINDOWS:
            rows = [
                (away > FAR, {"cv": cv(window), "lag1": lag1(window), "change": fitted_change(window)})
                for window, away in windows(found, half, io, n)
                if cv(window) <= FLAT_CV
            ]
            far = [f for is_far, f in rows if is_far]
            near = [f for is_far, f in rows if not is_far]
            out[f"{io} n={n}"] = {
                "flat_points": len(rows),
                "more_than_1_5pct": len(far),
                "auc": {key: auc([f[key] for f in far], [f[key] for f in near]) for key in ("cv", "lag1", "change")},
            }
    return out


def flat_stops(found: list[Trace], half: str) -> dict:
    """Question 2: the runner's rule (`stopping_product.first_stop`) on one half's points, reads and writes
    apart, flat (seconds 2..9 within `FLAT_CV`) or not: stops as known, the share whose interval holds the
    whole run's mean, the median stop and the fio time saved."""
    from stopping_product import first_stop

    out: dict = {}
    for io in ("reads", "writes"):
        for flat in (True, False):
            rows = []
            for t in found:
                window = t.rates[1 : 1 + max(WINDOWS)]
                if t.half != half or t.writes != (io == "writes") or min(window) <= 0:
                    continue
                if (cv(window) <= FLAT_CV) != flat:
                    continue
                stop = first_stop(t.rates, t.writes)
                d = stop.decision
                known = stop.stopped and d.interval is not None
                estimate = statistics.fmean(t.rates[d.discarded : stop.stop_s])
                holds = known and abs(estimate - statistics.fmean(t.rates)) <= d.interval.half_width
                rows.append({"known": known, "holds": holds, "stop_s": stop.stop_s, "seconds": len(t.rates)})
            known_rows = [r for r in rows if r["known"]]
            out[f"{io} {'flat' if flat else 'not flat'}"] = {
                "points": len(rows),
                "stopped_known": len(known_rows),
                "holds_whole_mean": _share(known_rows, "holds"),
                "median_stop_s": statistics.median(r["stop_s"] for r in known_rows) if known_rows else None,
                "fio_time_saved": 1 - sum(r["stop_s"] for r in rows) / sum(r["seconds"] for r in rows)
                if rows
                else None,
            }
    return out


def _share(rows: list[dict], key: str) -> float | None:
    return sum(r[key] for r in rows) / len(rows) if rows else None


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collection", type=Path, nargs="?", help="fio-plot's benchmark_data folder")
    parser.add_argument("--limit", type=int, help="read at most this many points")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:  # the suite's own real fio outputs with logs stand in for the collection
        args.collection = args.collection or Path(__file__).resolve().parent.parent / "tests" / "data" / "fio"
        args.limit = args.limit or 20
    if args.collection is None or not args.collection.is_dir():
        sys.exit(f"{args.collection} is not a folder: give fio-plot's benchmark_data")
    started = time.monotonic()
    found, counts = traces(args.collection, args.limit)
    flat = {half: flat_table(found, half) for half in ("choose", "held-out")}
    told = predictors(found, "choose")
    for key, p in told.items():
        print(
            f"choose {key:11} flat (CV ≤ 0.5%): {p['flat_points']}, {p['more_than_1_5pct']} end >1.5% away; AUC {p['auc']}"
        )
    for key, bins in flat["choose"].items():
        for name, b in bins.items():
            print(
                f"choose {key:11} CV {name:10} {b['points']:4} points: median {b['median_away']:.2%} away, "
                f"p95 {b['p95_away']:.2%}, >1% {_pct(b['more_than_1pct'])}, >2% {_pct(b['more_than_2pct'])}"
            )
    stops = {half: flat_stops(found, half) for half in ("choose", "held-out")}
    for half, groups in stops.items():
        for name, g in groups.items():
            print(
                f"{half} {name:16}: {g['stopped_known']} of {g['points']} known, hold {_pct(g['holds_whole_mean'])}, "
                f"median stop {g['median_stop_s']}, saved {_pct(g['fio_time_saved'])}"
            )
    figures = {
        "collection": args.collection.name,
        "rule": rule_figures(),
        "counts": counts,
        "points": len(found),
        "flat": flat,
        "flat_predictors_choose": told,
        "stops_by_flatness": stops,
        "seconds": round(time.monotonic() - started, 1),
    }
    if args.limit is None or args.smoke:
        write_result(RESULT, "stopping_flat", figures, smoke=args.smoke)


if __name__ == "__main__":
    main()
