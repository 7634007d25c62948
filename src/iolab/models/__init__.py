"""Plain typed data that crosses package borders (see ARCHITECTURE.md)."""

from iolab.models.finding import Finding, Severity
from iolab.models.plan import Plan, Workload
from iolab.models.point import Point, Target, TargetKind
from iolab.models.result import PERCENTILES, DirectionResult, LatencyStats, Result, Sample
from iolab.models.run import RUN_STATUSES, PointRecord, Run

__all__ = [
    "PERCENTILES",
    "RUN_STATUSES",
    "DirectionResult",
    "Finding",
    "LatencyStats",
    "Plan",
    "Point",
    "PointRecord",
    "Result",
    "Run",
    "Sample",
    "Severity",
    "Target",
    "TargetKind",
    "Workload",
]
