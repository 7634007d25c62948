"""Does a point stopped "when known" state an interval that holds on real devices? (issue 35)

fio-plot's published collection (github.com/louwrentius/fio-plot, benchmark_data: SATA/SAS SSDs,
HDDs, RAID sets, USB drives and a floppy, 60 s and 5-minute runs) keeps per-job IOPS logs beside
most of its 3,450 fio outputs. For every output with logs, its jobs' logs are summed into one
I/Os-per-second series (each log row is the rate over the window since the job's previous row, so
the job's cumulative I/O count is piecewise linear; its 1 s differences are the job's per-second
I/Os, summed over jobs), and iolab's stopping rule is replayed on it second by second exactly as the
runner asks it of a job that long (`stopping_product.first_stop`: the runner's defaults, ±2%, at least
3 s, a writer's minimum for points that write, at most the job's own length, which is also the run the
interval must hold; at the maximum, the runner's last word). A stopped point's estimate (the kept
seconds' mean) is compared with the point run to its end, its warm-up set aside as the stopped point set
it aside: the fixed-length run a stop replaces, and the figure the interval is judged by. Beside it, the
whole run's mean, warm-up included, and its second half's. (Until issue 40's fifth round this replay
stopped every run at 60 s and judged it against its first minute, after the runner had stopped doing so.)

The points are split in two by a hash of their path (issue 35's split; since issue 40 the rule's
parameters are chosen in `stopping_envelope.py`, on a split by drive, against each run's whole length). Writes
bench/results/stopping_replay.json; `bench/readme_figures.py` writes its figures and table into
docs/stopping.md.

    .venv/bin/python bench/stopping_replay.py PATH/TO/benchmark_data [--limit 40]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from results_file import add_smoke_flag, write_result

RESULT = Path(__file__).parent / "results" / "stopping_replay.json"
MIN_SECONDS = 10  # shorter series are not replayed: the rule's minimum and a first batch need more


@dataclass(frozen=True)
class Trace:
    """One point of the collection: its per-second I/O rate series and what it ran on."""

    path: str
    device: str
    workload: str
    writes: bool
    rates: list[float]

    @property
    def half(self) -> str:
        """Which half of the split the point is in: stable across runs and machines (a hash of its path)."""
        return "choose" if zlib.crc32(self.path.encode()) % 2 == 0 else "held-out"


@dataclass(frozen=True)
class Replay:
    """What the rule did on one trace."""

    device: str
    workload: str
    writes: bool
    half: str
    seconds: int  # the point's fixed length as replayed: its series, at most the rule's maximum
    stop_s: int
    reason: str
    estimate: float
    half_width: float
    run_to_max_mean: float  # the point run to the rule's maximum, its warm-up set aside as the stop set it aside
    whole_mean: float
    second_half_mean: float


DEVICE_CLASSES = (  # the first match names a point's class, from the folder names fio-plot gave it
    ("FLOPPY", "floppy"),
    ("USB", "USB drive"),
    ("RAID5", "RAID 5"),
    ("RAID0", "RAID 0"),
    ("RAIDO", "RAID 0"),
    ("RAID_0", "RAID 0"),
    ("3XSSD", "RAID (SSD set)"),
    ("4X_SSD", "RAID 0"),
    ("HDD", "HDD"),
    ("RPM", "HDD"),
    ("HGST", "HDD"),
    ("SAMSUNGF1", "HDD"),
    ("P420I", "SSD behind RAID controller"),
)


def device_class(path: str) -> str:
    """The device class of a point from its folders (SSD unless a folder says otherwise)."""
    folders = path.upper().split("/")[:-1]
    for mark, name in DEVICE_CLASSES:
        if any(mark in folder for folder in folders):
            return name
    return "SSD"


def per_second(times_ms: list, values: list) -> list[float]:
    """A job's I/Os in each whole second of its log: each row is its rate over the window since the row
    before, so the cumulative count is piecewise linear between rows."""
    import numpy as np

    t = np.asarray(times_ms, dtype=float)
    v = np.asarray(values, dtype=float)
    order = np.argsort(t, kind="stable")
    t, v = t[order], v[order]
    windows = np.diff(np.concatenate([[0.0], t])) / 1000
    cumulative = np.concatenate([[0.0], np.cumsum(v * windows)])
    knots = np.concatenate([[0.0], t])
    whole = int(t[-1] // 1000) if len(t) else 0
    at = np.interp(np.arange(whole + 1) * 1000.0, knots, cumulative)
    return list(np.diff(at))


def traces(root: Path, limit: int | None) -> tuple[list[Trace], dict]:
    """Every output under `root` whose IOPS logs are beside it, as a `Trace`; and counts of the rest."""
    from iolab.fio.logs import read_logs
    from iolab.models.job_options import JobOptions

    counts = {"outputs": 0, "without_logs": 0, "shorter_than_min": 0, "unreadable": 0}
    out: list[Trace] = []
    for path in sorted(root.rglob("*.json")):
        if limit is not None and len(out) >= limit:
            break
        counts["outputs"] += 1
        text = path.read_text(errors="replace")
        try:
            doc = json.loads(text[text.find("{") :])
            job = doc["jobs"][0]
            options = {**doc.get("global options", {}), **job["job options"]}
        except (ValueError, KeyError, IndexError, TypeError):
            counts["unreadable"] += 1
            continue
        prefix = Path(options.get("write_iops_log") or "-").name
        jobs: dict[str, list] = defaultdict(list)
        for series in read_logs(path.parent, prefix):
            if series.metric == "iops":
                jobs[series.source].append(series)
        if not jobs:
            counts["without_logs"] += 1
            continue
        per_job = []
        for parts in jobs.values():  # a job's directions together: the runner's rate counts every I/O
            times = [t for s in parts for t in s.t_ms]
            values = [v for s in parts for v in s.values]
            per_job.append(per_second(times, values))
        length = min(len(seconds) for seconds in per_job)
        if length < MIN_SECONDS:
            counts["shorter_than_min"] += 1
            continue
        rates = [sum(seconds[i] for seconds in per_job) for i in range(length)]
        rw = str(options.get("rw", "?"))
        writes = JobOptions({"rw": rw}).writes
        depth = int(options.get("iodepth", 1)) * int(options.get("numjobs", 1))
        workload = f"{rw} {'QD≤4' if depth <= 4 else 'QD>4'}"
        relative = str(path.relative_to(root))
        out.append(Trace(relative, device_class(relative), workload, writes, rates))
    return out, counts


def replay(trace: Trace) -> Replay:
    """The runner's rule for a job as long as the trace, asked after each second as `runner.stopping.Watch`
    asks it (`stopping_product.first_stop`); at the maximum, the reason and interval `Watch.record` keeps."""
    from stopping_product import first_stop

    rates = trace.rates
    found = first_stop(rates, trace.writes)
    decision, n = found.decision, found.stop_s
    seconds = min(len(rates), int(found.rule.cap))  # the run the stop replaces: the job's own length
    kept = rates[decision.discarded : n]
    interval = decision.interval
    return Replay(
        device=trace.device,
        workload=trace.workload,
        writes=trace.writes,
        half=trace.half,
        seconds=seconds,
        stop_s=n,
        reason=decision.reason,
        estimate=statistics.fmean(kept),
        half_width=interval.half_width if interval else float("inf"),
        run_to_max_mean=statistics.fmean(rates[decision.discarded : seconds]),
        whole_mean=statistics.fmean(rates),
        second_half_mean=statistics.fmean(rates[len(rates) // 2 :]),
    )


def rule_figures() -> dict:
    """The runner's stopping rule as replayed (`stopping_product.product_rule`): its target, bounds, writer's
    minimum and wander terms; the maximum and horizon are each job's own length."""
    from stopping_product import product_rule

    from iolab.analysis.stopping import PARAMS

    rule = product_rule(60)
    return {
        "target_ci": rule.target,
        "min_s": rule.min_s,
        "max_s": "the job's own length",
        "write_min_s": PARAMS.write_min_s,
        "wander_read": PARAMS.wander_read,
        "wander_write": PARAMS.wander_write,
        "wander_s": PARAMS.wander_s,
    }


def summary(rows: list[Replay], target: float) -> dict:
    """Coverage and time saved over `rows` (see the module's doc)."""
    met = [r for r in rows if r.reason == "target met"]
    return {
        "points": len(rows),
        "stopped_known": len(met),
        "interval_holds_run_to_max_mean": _share(met, lambda r: abs(r.estimate - r.run_to_max_mean) <= r.half_width),
        "interval_holds_whole_mean": _share(met, lambda r: abs(r.estimate - r.whole_mean) <= r.half_width),
        "interval_holds_second_half_mean": _share(met, lambda r: abs(r.estimate - r.second_half_mean) <= r.half_width),
        "within_target_of_run_to_max_mean": _share(met, lambda r: abs(r.estimate / r.run_to_max_mean - 1) <= target),
        "median_stop_s": statistics.median(r.stop_s for r in met) if met else None,
        "fio_time_saved": 1 - sum(r.stop_s for r in rows) / sum(r.seconds for r in rows) if rows else None,
        "not_steady": sum(r.reason == "not steady" for r in rows),
        "target_not_met": sum(r.reason == "target not met" for r in rows),
    }


def _share(rows: list[Replay], holds) -> float | None:
    return sum(1 for r in rows if holds(r)) / len(rows) if rows else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collection", type=Path, nargs="?", help="fio-plot's benchmark_data folder")
    parser.add_argument("--limit", type=int, help="replay at most this many points")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:  # the suite's own real fio outputs with logs stand in for the collection
        args.collection = args.collection or Path(__file__).resolve().parent.parent / "tests" / "data" / "fio"
        args.limit = args.limit or 20
    if args.collection is None or not args.collection.is_dir():
        sys.exit(f"{args.collection} is not a folder: give fio-plot's benchmark_data")
    from iolab.runner.stopping import DEFAULT_TARGET

    started = time.monotonic()
    found, counts = traces(args.collection, args.limit)
    rows = [replay(t) for t in found]
    held = [r for r in rows if r.half == "held-out"]
    groups: dict[str, list[Replay]] = defaultdict(list)
    for r in held:
        groups[f"{r.device} | {r.workload}"].append(r)
    figures = {
        "collection": args.collection.name,
        "rule": rule_figures(),
        "counts": counts,
        "replayed": len(rows),
        "choose": summary([r for r in rows if r.half == "choose"], DEFAULT_TARGET),
        "held_out": summary(held, DEFAULT_TARGET),
        "held_out_by_class": {k: summary(v, DEFAULT_TARGET) for k, v in sorted(groups.items())},
        "held_out_by_io": {
            io: summary([r for r in held if r.writes == (io == "writes")], DEFAULT_TARGET) for io in ("reads", "writes")
        },
        "seconds": round(time.monotonic() - started, 1),
    }
    print(json.dumps({"replayed": len(rows), "held_out": figures["held_out"], "choose": figures["choose"]}, indent=1))
    if args.limit is None or args.smoke:
        write_result(RESULT, "stopping_replay", figures, smoke=args.smoke)


if __name__ == "__main__":
    main()
