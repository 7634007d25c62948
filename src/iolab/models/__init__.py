"""Plain typed data that crosses package borders (see ARCHITECTURE.md)."""

from iolab.models.finding import Finding, Severity
from iolab.models.plan import Plan, Workload
from iolab.models.point import Point, Target, TargetKind
from iolab.models.result import PERCENTILES, DirectionResult, LatencyStats, Result, Sample
from iolab.models.run import RUN_STATUSES, PointRecord, Run
from iolab.models.snapshot import BlockDevice, Change, FileSystem, NvmeSmart, PciPort, Snapshot, TargetInfo

__all__ = [
    "PERCENTILES",
    "RUN_STATUSES",
    "DirectionResult",
    "BlockDevice",
    "Change",
    "FileSystem",
    "Finding",
    "LatencyStats",
    "Plan",
    "Point",
    "PointRecord",
    "Result",
    "Run",
    "NvmeSmart",
    "PciPort",
    "Sample",
    "Severity",
    "Snapshot",
    "Target",
    "TargetInfo",
    "TargetKind",
    "Workload",
]
