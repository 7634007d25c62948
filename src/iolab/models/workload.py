"""The same workload across runs: its identity and the metric it is judged by.

`Point.key` includes the repeat, so it names one measurement. Comparing
runs and following a workload over months needs the identity of the
workload itself: what it runs and where, without the repeat. The store
keeps that identity with each point; compare, history, export and the
doctor's repeat sets judge a workload by the same metric.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from iolab.models.job_options import JobOptions
from iolab.models.point import Point

# rw modes that stream (`JobOptions.rw`: readwrite is spelt rw): their figure of merit is bandwidth, not IOPS.
SEQUENTIAL_RW = ("read", "write", "rw", "trim")
METRIC_LABELS = {"bw": "bandwidth", "iops": "IOPS", "lat_mean": "mean latency"}


def workload_identity(point: Point) -> str:
    """Hash of what a point runs and where, without its repeat: equal across runs of the same workload."""
    identity = {
        "name": point.name,
        "options": dict(sorted(point.options.items())),
        "filename": point.target.identity_filename,
        "kind": point.target.kind,
        "size": point.target.size_bytes,
    }
    if point.host_settings:  # two schedulers are two workloads; identities without settings stay as they were
        identity["host_settings"] = dict(sorted(point.host_settings.items()))
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


def metric_for(options: Mapping[str, str]) -> str:
    """The metric a workload is judged by: "bw" when it streams, "lat_mean" at QD1 x 1 job, else "iops"
    (always for file operations, which move no data).

    The same choice everywhere (compare, history, export) so a series never
    changes its unit between commands. A random workload at one outstanding
    I/O measures latency; its IOPS is only the reciprocal.
    """
    job = JobOptions(options)
    if job.is_metadata or job.tool == "mdtest":
        return "iops"  # file and directory operations (fio's file engines, mdtest): operations per second
    if job.rw in SEQUENTIAL_RW:
        return "bw"
    if job.iodepth == 1 and job.numjobs == 1:
        return "lat_mean"
    return "iops"


def higher_is_better(metric: str) -> bool:
    return metric != "lat_mean"


@dataclass
class Series:
    """One workload on one target of one host, oldest run first.

    `values` holds one figure per run: the mean over the run's finished
    repeats of the primary metric (`store.series._fill`). A planned repeat
    that failed, or that a finished or killed run never reached, was not
    measured: it is left out, never counted as 0, and marks the run in
    `failed`; a run with no finished repeat is NaN ("not measured").
    """

    host: str
    target: str
    workload: str  # identity
    name: str
    metric: str
    run_ids: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    failed: list[bool] = field(default_factory=list)  # some planned repeat of this run gave nothing
    # Every metric of the latest run (mean over its finished repeats; None when none finished), for export.
    latest: dict[str, float | None] = field(default_factory=dict)
    older: int = 0  # runs of this series not held: older than those read (`iolab history --last N`)

    @property
    def higher_is_better(self) -> bool:
        return higher_is_better(self.metric)
