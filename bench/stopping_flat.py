"""May a point that shows no per-second scatter stop sooner? Flat real points against a scatter-based wander (issue 35)

The stop rule's wander term (`iolab.analysis.stopping`, module doc) is a fixed share of the mean up to
20 kept seconds: 1.7% for a reading point, 2.0% for a writing one, so a writing point is never known to
±2% before 20 s, however flat its seconds. A throttled loop device reads the same every second; would a
term that shrinks with the point's own scatter be honest on real devices? Two questions, on fio-plot's
per-second traces (`bench/stopping_replay.py` reads them and splits the points in halves by a hash of their
path):

1. Flat points: of the points whose seconds 2..n+1 (the first second is fio's ramp) have a per-second
   coefficient of variation in a bin (0-0.1%, 0.1-0.2%, 0.2-0.5%, ...), how far is the mean of those n
   seconds from the mean of the point run to 60 s (first second set aside alike)? Reads and writes apart,
   n = 5 and 8. If flat real points end up as far away as scattered ones, flatness says nothing of wander.
   Among the flat ones (CV at most 0.5%), how well the window's own CV, lag-1 autocorrelation and fitted
   change tell the points that end more than 1.5% away from the rest (AUC: 0.5 is a coin).
2. A scatter-based rule: the runner's rule replayed second by second as `bench/stopping_replay.py` does,
   with the wander term `min(W, k × CV)` (CV of the kept seconds; W the fixed term; the same 1/sqrt
   shrinking past 20 s) for k on a grid, on the "choose" half. For each k: the stops as known, the share
   whose interval holds the run-to-60 s mean, and the same share among the stops the rule moved (made
   earlier than the fixed term, or made at all): those are the stops a scatter rule is for, and their
   share is the honest test (the unchanged stops would dilute it). The smallest k whose moved writing
   stops hold in at least 95% on the choose half is then read once on the held-out half (which the fixed
   terms' choice had already read: not a clean test).

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
KS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)  # k = inf is the fixed term (the rule as it stands)
COVERAGE = 0.95


def cv(values: list[float]) -> float:
    m = statistics.fmean(values)
    return statistics.stdev(values) / m if m > 0 and len(values) > 1 else math.inf


def quantile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def windows(found: list[Trace], half: str, max_s: int, io: str, n: int) -> Iterator[tuple[list[float], float]]:
    """Each point of one half and direction with seconds 2..n+1 measured: that window, and how far its mean
    ends from the mean of the run to `max_s` (its first second, fio's ramp, set aside in both)."""
    for t in found:
        if t.half != half or t.writes != (io == "writes"):
            continue
        rates = t.rates[:max_s]
        window = rates[1 : 1 + n]
        if len(rates) < n + 2 or min(window) <= 0:
            continue
        yield window, abs(statistics.fmean(window) / statistics.fmean(rates[1:]) - 1)


def flat_table(found: list[Trace], half: str, max_s: int) -> dict:
    """Question 1: per reads/writes, window and CV bin, how far the window's mean ends from the run-to-max mean."""
    out: dict = {}
    for io in ("reads", "writes"):
        for n in WINDOWS:
            rows = [(cv(window), away) for window, away in windows(found, half, max_s, io, n)]
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


def predictors(found: list[Trace], half: str, max_s: int) -> dict:
    """Among flat windows (CV at most `FLAT_CV`): AUC of each in-window figure for ending more than `FAR` away."""
    from iolab.analysis.stopping import lag1

    out: dict = {}
    for io in ("reads", "writes"):
        for n in WINDOWS:
            rows = [
                (away > FAR, {"cv": cv(window), "lag1": lag1(window), "change": fitted_change(window)})
                for window, away in windows(found, half, max_s, io, n)
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


def decide_scatter(values: list[float], target: float, min_s: float, max_s: float, writes: bool, k: float):
    """`iolab.analysis.stopping.decide` with the wander term min(W, k × CV of the kept seconds) (k = inf: the rule)."""
    from iolab.analysis import stopping as s

    elapsed = len(values)
    cut = s.mser_cut(values)
    kept = values[cut:]
    whole = s.stop_wander(len(kept), writes)
    if k != math.inf and len(kept) > 1:
        scatter = cv(kept)
        whole = min(whole, k * scatter * math.sqrt(s.WANDER_S / max(len(kept), s.WANDER_S)))
    interval = s.batch_interval(kept, wander=whole)
    is_steady = interval is not None and s.steady(kept, interval) and not s.level_shift(values[:cut], interval)
    met = interval is not None and is_steady and interval.relative <= target and len(kept) > cut
    if elapsed < min_s or not (met or elapsed >= max_s):
        return False, "", cut, interval
    return True, ("target met" if met else "not met"), cut, interval


def replay(trace: Trace, k: float, target: float, min_s: float, max_s: float) -> dict:
    """The rule asked after each second; the stop, its interval and whether it holds the run-to-max mean."""
    rates = trace.rates
    seconds = min(len(rates), int(max_s))
    for n in range(1, seconds + 1):
        stop, reason, cut, interval = decide_scatter(rates[:n], target, min_s, math.inf, trace.writes, k)
        if stop:
            break
    else:
        n = seconds
        stop, reason, cut, interval = decide_scatter(rates[:seconds], target, 0, 0, trace.writes, k)
    known = reason == "target met"
    estimate = statistics.fmean(rates[cut:n])
    run_to_max = statistics.fmean(rates[cut:seconds])
    return {
        "known": known,
        "stop_s": n,
        "seconds": seconds,
        "holds": known and abs(estimate - run_to_max) <= interval.half_width,
        "within_target": known and abs(estimate / run_to_max - 1) <= target,
    }


def summary(rows: list[dict], fixed: list[dict]) -> dict:
    """Over a set of points: stops as known and their coverage; the same for the stops moved from the fixed rule."""
    known = [r for r in rows if r["known"]]
    moved = [
        r for r, f in zip(rows, fixed, strict=True) if r["known"] and (not f["known"] or r["stop_s"] < f["stop_s"])
    ]
    return {
        "points": len(rows),
        "stopped_known": len(known),
        "holds": _share(known, "holds"),
        "within_target": _share(known, "within_target"),
        "moved": len(moved),
        "moved_holds": _share(moved, "holds"),
        "moved_within_target": _share(moved, "within_target"),
        "moved_median_stop_s": statistics.median(r["stop_s"] for r in moved) if moved else None,
        "fio_time_saved": 1 - sum(r["stop_s"] for r in rows) / sum(r["seconds"] for r in rows) if rows else None,
    }


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
    from iolab.runner.stopping import DEFAULT_MAX_S, DEFAULT_MIN_S, DEFAULT_TARGET

    started = time.monotonic()
    found, counts = traces(args.collection, args.limit)
    rule = (DEFAULT_TARGET, DEFAULT_MIN_S, DEFAULT_MAX_S)
    flat = {half: flat_table(found, half, int(DEFAULT_MAX_S)) for half in ("choose", "held-out")}
    told = predictors(found, "choose", int(DEFAULT_MAX_S))
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

    def replays(half: str, k: float) -> dict[str, list[dict]]:
        return {
            io: [replay(t, k, *rule) for t in found if t.half == half and t.writes == (io == "writes")]
            for io in ("reads", "writes")
        }

    fixed = {half: replays(half, math.inf) for half in ("choose", "held-out")}
    grid = {}
    for k in KS:
        rows = replays("choose", k)
        grid[f"{k:g}"] = {io: summary(rows[io], fixed["choose"][io]) for io in rows}
        w, r = grid[f"{k:g}"]["writes"], grid[f"{k:g}"]["reads"]
        print(
            f"choose k={k:<4g} writes: {w['stopped_known']} known, hold {_pct(w['holds'])}; moved {w['moved']} hold "
            f"{_pct(w['moved_holds'])} (median stop {w['moved_median_stop_s']}), saved {_pct(w['fio_time_saved'])} | "
            f"reads: {r['stopped_known']} known, hold {_pct(r['holds'])}; moved {r['moved']} hold {_pct(r['moved_holds'])}"
        )
    honest = [
        k
        for k in KS
        if (grid[f"{k:g}"]["writes"]["moved_holds"] or 0) >= COVERAGE and grid[f"{k:g}"]["writes"]["moved"] > 0
    ]
    chosen = min(honest) if honest else None  # the smallest k (narrowest term) whose moved writing stops hold in ≥95%
    held = None
    if chosen is not None:
        rows = replays("held-out", chosen)
        held = {io: summary(rows[io], fixed["held-out"][io]) for io in rows}
        print(f"held-out k={chosen:g}: {held}")
    figures = {
        "collection": args.collection.name,
        "rule": rule_figures(),
        "counts": counts,
        "points": len(found),
        "flat": flat,
        "flat_predictors_choose": told,
        "fixed": {half: {io: summary(rows, rows) for io, rows in by_io.items()} for half, by_io in fixed.items()},
        "scatter_rule_choose": grid,
        "chosen_k": chosen,
        "held_out_at_chosen_k": held,
        "seconds": round(time.monotonic() - started, 1),
    }
    if args.limit is None or args.smoke:
        write_result(RESULT, "stopping_flat", figures, smoke=args.smoke)


if __name__ == "__main__":
    main()
