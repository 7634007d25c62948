"""Series as Prometheus gauges: the latest run's figures with the rolling COV and health of its series."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from iolab.models.workload import Series
from iolab.views.history import latest_health

NS = 1e-9


@dataclass(frozen=True)
class SeriesMetrics:
    """The latest figures of one series: a workload on a target on a host."""

    host: str
    target: str
    workload: str
    bandwidth_bytes_per_second: float | None = None
    iops: float | None = None
    latency_mean_seconds: float | None = None
    latency_p99_seconds: float | None = None
    rolling_cov: float | None = None  # stddev / mean over the health window
    healthy: bool | None = None  # None: too few runs to judge
    last_run_timestamp_seconds: float | None = None  # epoch seconds


def series_metrics(series: list[Series], window_s: float, cov_target: float, min_runs: int) -> list[SeriesMetrics]:
    """One `SeriesMetrics` per series.

    The workload label is the workload's name; two workloads of the same
    name on the same target and host (options edited between runs) would be
    one Prometheus series twice, so those get their identity appended.
    """
    names = Counter((s.host, s.target, s.name) for s in series)
    out = []
    for s in series:
        health = latest_health(s, window_s, cov_target, min_runs)
        label = s.name if names[(s.host, s.target, s.name)] == 1 else f"{s.name}@{s.workload}"
        latency = s.latest.get("lat_mean")
        out.append(
            SeriesMetrics(
                host=s.host,
                target=s.target,
                workload=label,
                bandwidth_bytes_per_second=s.latest.get("bw"),
                iops=s.latest.get("iops"),
                latency_mean_seconds=None if latency is None else latency * NS,
                rolling_cov=health.cov,
                healthy=None if health.state == "insufficient" else health.state == "healthy",
                last_run_timestamp_seconds=s.times[-1],
            )
        )
    return out
