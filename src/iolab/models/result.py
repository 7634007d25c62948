"""Parsed fio results: per direction, aggregated over jobs and hosts."""

from __future__ import annotations

from dataclasses import dataclass, field

# Percentiles iolab reports, computed from fio's json+ histogram (never averaged).
PERCENTILES: tuple[float, ...] = (50.0, 90.0, 95.0, 99.0, 99.9, 99.99)


@dataclass
class LatencyStats:
    """Latency of one direction, pooled over every job by I/O count.

    `kind` is "lat" (submission + completion, what the application sees) when
    fio reported it with a histogram, else "clat" (completion only, the only
    histogram older or default fio output carries).
    """

    kind: str
    count: int
    mean_ns: float
    stddev_ns: float
    min_ns: float
    max_ns: float
    percentiles: dict[float, float] = field(default_factory=dict)


@dataclass
class DirectionResult:
    """Read, write or trim totals of one point: throughput summed over jobs."""

    ddir: str
    bw_bytes: float
    iops: float
    total_ios: int
    io_bytes: int
    runtime_ms: int
    latency: LatencyStats | None = None


@dataclass(frozen=True)
class SteadyState:
    """What fio's steady-state detection (`ss=`) said of a point: whether it held, and when fio stopped.

    fio ends a job as soon as its criterion holds over the last `duration_s` seconds, so when
    `attained`, `runtime_ms` is the moment it was reached; otherwise the job ran its whole runtime.
    `criterion` is fio's own statement of what was asked ("iops:20.000000%"), `measured` what the last
    window gave ("0.366972%", the deviation or slope fio compared). Over several jobs: attained when
    every job attained it, at the latest job's moment.
    """

    criterion: str
    attained: bool
    runtime_ms: int
    measured: str
    duration_s: float


@dataclass(frozen=True)
class StopRecord:
    """Why a point with stopping on ended, and how well its number is known.

    `reason`: "target met" (stopped early), "not steady" (a trend at the
    maximum), "target not met" (the interval still too wide at the maximum)
    or "fio's runtime" (fio ended by itself first). `ci` is the relative
    half-width of the 95% interval, around the kept seconds' mean rate, of
    the mean of the whole run the job asked for (None when too few seconds;
    `iolab.analysis.stopping`); `discarded_s` the warm-up seconds left out;
    `kept_s` the seconds the reported rate covers.
    """

    reason: str
    ci: float | None
    target: float
    discarded_s: int
    kept_s: int

    @property
    def met(self) -> bool:
        return self.reason == "target met"


@dataclass
class Result:
    """Everything iolab keeps from one fio invocation's summary.

    CPU is summed over jobs in percent of one CPU (100 = one core busy),
    because a per-job average hides a saturated submitter.
    """

    directions: dict[str, DirectionResult]
    usr_cpu: float
    sys_cpu: float
    jobs: int
    fio_version: str
    hosts: list[str] = field(default_factory=list)
    error: int = 0
    steady: SteadyState | None = None  # fio's ss= verdict, where the job asked for one
    stopping: StopRecord | None = None  # set when the point ran with stopping on (`iolab.runner.stopping`)

    @property
    def cpu(self) -> float:
        return self.usr_cpu + self.sys_cpu


@dataclass(frozen=True)
class Sample:
    """One value of a per-interval series (fio log row or telemetry reading).

    Units: bw in bytes/s, iops in I/O per second, latencies in ns.
    `source` names the job ("job1") or device the series belongs to.
    """

    metric: str
    ddir: str
    source: str
    t_ms: int
    value: float


def primary_metric(result: Result | None, metric: str = "auto") -> float:
    """The number adaptive decisions follow: total IOPS (bandwidth or mean latency on request).

    A failed point counts as 0, so a search or a stability check sees the failure.
    """
    if result is None:
        return 0.0
    directions = list(result.directions.values())
    if metric == "bw":
        return sum(d.bw_bytes for d in directions)
    if metric == "lat_mean":
        lats = [d.latency.mean_ns for d in directions if d.latency]
        return sum(lats) / len(lats) if lats else 0.0
    return sum(d.iops for d in directions)


@dataclass
class HostOutcome:
    """One host's part of one point of a multi-host run: its status, totals and runtime.

    `runtime_ms` is the longest job runtime on the host: the first-done and
    last-done hosts of a point are what stonewalling compares.
    """

    host: str
    status: str  # "ok" or "failed"
    error: str = ""
    result: Result | None = None
    runtime_ms: int = 0
