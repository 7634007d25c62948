"""What the doctor reads about one run, as the store and the runner hand it over.

The diagnosis stage judges a run from its material alone, so the same
findings come out whether the run just finished, was imported, or is read
back from the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iolab.models.run import PointRecord
from iolab.models.sample_series import SampleSeries
from iolab.models.snapshot import Snapshot

# The series the doctor reads: fio's per-job bandwidth (dips), each device's bandwidth (dips in arrays, other
# I/O) and other processes' CPU (interference). The store hands over only these: fio-plot's collection holds
# 30.8M log rows, four fifths of them latency and IOPS that no rule reads.
DOCTOR_METRICS = ("bw", "disk.bw", "proc.cpu")


@dataclass
class HostRow:
    """One host's part of one point, as stored: status, runtime and totals over its directions."""

    point_id: int
    host: str
    status: str
    error: str
    runtime_ms: int | None
    bw_bytes: float | None = None
    iops: float | None = None
    lat_mean_ns: float | None = None
    p99_ns: float | None = None


@dataclass(frozen=True)
class SteadyOutcome:
    """How a steady-state search over rounds ended on one target (SNIA PTS rounds)."""

    target: str
    steady: bool
    reason: str
    values: list[float]


@dataclass
class RunMaterial:
    """A run's snapshot, measured points, their per-second series, per-device and per-host figures."""

    snapshot: Snapshot | None = None
    records: list[PointRecord] = field(default_factory=list)  # every point, measured (with a result) or not
    series: dict[int, list[SampleSeries]] = field(default_factory=dict)  # point id -> the series the doctor reads
    device_bw: dict[int, dict[str, float]] = field(default_factory=dict)  # point id -> device -> bytes/s
    hosts: dict[int, list[HostRow]] = field(default_factory=dict)  # point id -> each host's row
    steady: list[SteadyOutcome] = field(default_factory=list)
    cov_target: float | None = None  # the plan's COV target when its repeats were adaptive
