"""Plain typed data that crosses package borders (see ARCHITECTURE.md)."""

from iolab.models.finding import Finding, Severity
from iolab.models.plan import (
    LatencyCurve,
    MetadataScaling,
    Phases,
    Plan,
    Precondition,
    QdSearch,
    RepeatPolicy,
    SteadyRounds,
    Workload,
)
from iolab.models.point import Point, Target, TargetKind
from iolab.models.result import (
    PERCENTILES,
    DirectionResult,
    HostOutcome,
    LatencyStats,
    Result,
    Sample,
    SteadyState,
    StopRecord,
    primary_metric,
)
from iolab.models.run import PhaseRecord, PointRecord, Run
from iolab.models.side import PointMetric
from iolab.models.snapshot import BlockDevice, Change, FileSystem, NvmeSmart, PciPort, Snapshot, TargetInfo

__all__ = [
    "PERCENTILES",
    "DirectionResult",
    "BlockDevice",
    "Change",
    "FileSystem",
    "Finding",
    "HostOutcome",
    "LatencyCurve",
    "LatencyStats",
    "MetadataScaling",
    "Phases",
    "Plan",
    "Point",
    "PointMetric",
    "PhaseRecord",
    "PointRecord",
    "Precondition",
    "QdSearch",
    "RepeatPolicy",
    "Result",
    "StopRecord",
    "Run",
    "NvmeSmart",
    "PciPort",
    "Sample",
    "Severity",
    "Snapshot",
    "SteadyRounds",
    "SteadyState",
    "Target",
    "TargetInfo",
    "TargetKind",
    "primary_metric",
    "Workload",
]
