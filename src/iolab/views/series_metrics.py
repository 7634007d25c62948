"""Series as Prometheus gauges: the latest run's figures with the rolling COV and health of its series,
the fullness of its target's file system and its last change point.

Labels are what stays the same from run to run (host, target, workload
name and identity): a label that changed every run would start a new time
series each hour and lose the history an alert looks at.
"""

from __future__ import annotations

from dataclasses import dataclass

from iolab.models.workload import Series
from iolab.store.db import Store
from iolab.views.export import run_targets
from iolab.views.history import latest_health, series_changes

NS = 1e-9


@dataclass(frozen=True)
class SeriesMetrics:
    """The latest figures of one series: a workload on a target on a host."""

    host: str
    target: str
    workload: str  # its name, as a person reads it
    workload_id: str = ""  # its identity (`models.workload.workload_identity`): two workloads of one name differ
    bandwidth_bytes_per_second: float | None = None
    iops: float | None = None
    latency_mean_seconds: float | None = None
    latency_p99_seconds: float | None = None
    rolling_cov: float | None = None  # stddev / mean over the health window
    healthy: bool | None = None  # None: too few runs to judge
    last_run_timestamp_seconds: float | None = None  # epoch seconds
    filesystem_used_ratio: float | None = None  # the target's file system at the latest run, 0..1
    # First run of the latest change of level (an unplaced one at its likeliest run); None: no change of level
    last_change_run: int | None = None
    last_change_timestamp_seconds: float | None = None


def series_metrics(
    store: Store, series: list[Series], window_s: float, cov_target: float, min_runs: int
) -> list[SeriesMetrics]:
    """One `SeriesMetrics` per series; the fullness comes from the latest run's snapshot (None without one,
    or when the target is a device without a file system)."""
    out = []
    for s in series:
        health = latest_health(s, window_s, cov_target, min_runs)
        changes = series_changes(s)
        latency = s.latest.get("lat_mean")
        used = run_targets(store, s.run_ids[-1]).get(s.target)
        percent = used.fs_used_percent if used is not None else None
        out.append(
            SeriesMetrics(
                host=s.host,
                target=s.target,
                workload=s.name,
                workload_id=s.workload,
                bandwidth_bytes_per_second=s.latest.get("bw"),
                iops=s.latest.get("iops"),
                latency_mean_seconds=None if latency is None else latency * NS,
                rolling_cov=health.cov,
                healthy=None if health.state == "insufficient" else health.state == "healthy",
                last_run_timestamp_seconds=s.times[-1],
                filesystem_used_ratio=None if percent is None else percent / 100,
                last_change_run=s.run_ids[changes[-1].index] if changes else None,
                last_change_timestamp_seconds=s.times[changes[-1].index] if changes else None,
            )
        )
    return out
