"""Running a plan through iolab with stopping on or off, for the stopping benchmarks (issue 22).

`run_plan` runs a Plan through `iolab.runner.execute` (telemetry on, the
same code path as `iolab run`) into a store of the bench's own, and returns
each finished point's figures: IOPS, bandwidth, mean and p99 latency of its
one direction, the seconds fio ran (its runtime plus any ramp_time: both are
fio's time) and, with stopping on, why the point stopped. Beside them, from
fio's 1 s IOPS logs (every job summed), the per-second coefficient of
variation (how noisy the host made the point) and, on a fixed-length point,
the second at which iolab's rule would have stopped on those same seconds
(`replay_stop_s`: the runner's rule for a job that long replayed, None when it would not have).
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class PointFigures:
    name: str
    iodepth: int
    numjobs: int
    iops: float
    bw_bytes: float
    lat_mean_ns: float | None
    lat_p99_ns: float | None
    fio_s: float  # fio's runtime plus ramp_time
    stopping: dict | None = None
    seconds_cov: float | None = None
    replay_stop_s: int | None = None


@dataclass
class PlanRun:
    points: list[PointFigures]
    wall_s: float
    fio_s: float
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    findings: list[dict] = field(default_factory=list)


def cpu_pressure() -> str:
    """The host's CPU pressure (PSI "some avg10/avg60"), or "" where the kernel has none."""
    try:
        line = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except OSError:
        return ""
    return " ".join(part for part in line.split() if part.startswith(("avg10", "avg60")))


def per_second_iops(samples) -> list[float]:
    """The point's IOPS each second, summed over its jobs' fio logs; the first and last (partial) seconds
    dropped."""
    by_second: dict[int, float] = {}
    for sample in samples:
        if sample.metric == "iops" and sample.source.startswith("job"):
            second = round(sample.t_ms / 1000)
            by_second[second] = by_second.get(second, 0.0) + sample.value
    return [by_second[k] for k in sorted(by_second)][1:-1]


def cov(values: list[float]) -> float | None:
    if len(values) < 2 or statistics.mean(values) == 0:
        return None
    return statistics.stdev(values) / statistics.mean(values)


def replay(seconds: list[float], writes: bool) -> int | None:
    """The first second at which the runner's rule says "target met" on this series (asked as the runner asks
    a job as long as it, `stopping_product.first_stop`), or None."""
    from stopping_product import first_stop

    found = first_stop(seconds, writes)
    return found.stop_s if found.stopped else None


def run_plan(plan, device: str, home: Path, stopping: dict | None = None) -> PlanRun:
    """Run `plan` on the block device (writes allowed); the figures of every finished point, in order."""
    from iolab.runner.execute import execute
    from iolab.runner.progress import SilentProgress
    from iolab.runner.request import RunRequest
    from iolab.store.db import open_store
    from iolab.store.queries import point_samples, run_points

    request = RunRequest(plan=plan.name, targets=[device], allow_write=True, stopping=dict(stopping or {}))
    store = open_store(home)
    load_before = os.getloadavg()
    started = time.monotonic()
    try:
        run_id = execute(request, store, SilentProgress(), fresh=True, plan=plan).run_id
        wall = time.monotonic() - started
        points = []
        for record in run_points(store, run_id):
            if not record.measured or record.result is None:
                raise SystemExit(f"{record.point.name} did not finish: {record.error}")
            (direction,) = record.result.directions.values()
            latency = direction.latency
            stop = record.result.stopping
            # With stopping on, fio runs without the plan's ramp_time (the stored point still names it).
            ramp = 0.0 if stop else float(str(record.point.options.get("ramp_time", "0")).removesuffix("s") or 0)
            seconds = per_second_iops(point_samples(store, record.id))
            points.append(
                PointFigures(
                    name=record.point.name,
                    iodepth=int(record.point.options.get("iodepth", 1)),
                    numjobs=int(record.point.options.get("numjobs", 1)),
                    iops=direction.iops,
                    bw_bytes=direction.bw_bytes,
                    lat_mean_ns=latency.mean_ns if latency else None,
                    lat_p99_ns=latency.percentiles.get(99.0) if latency else None,
                    fio_s=direction.runtime_ms / 1000 + ramp,
                    stopping=None
                    if stop is None
                    else {
                        "reason": stop.reason,
                        "ci": stop.ci,
                        "discarded_s": stop.discarded_s,
                        "kept_s": stop.kept_s,
                    },
                    seconds_cov=cov(seconds),
                    replay_stop_s=replay(seconds, record.point.job.writes) if stop is None else None,
                )
            )
    finally:
        store.close()
    return PlanRun(points, wall, sum(p.fio_s for p in points), load_before, os.getloadavg())
