"""Plain typed data that crosses package borders (see ARCHITECTURE.md).

Each is loaded when first asked for (`from iolab.models import Point` loads `models.point` alone): a command
loads the models it uses, not all of them (the plan's and the snapshot's dataclasses were ~12 ms of CPU at the
start of `iolab import`, which uses neither).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

_WHERE = {
    "Finding": "iolab.models.finding",
    "Severity": "iolab.models.finding",
    "LatencyCurve": "iolab.models.plan",
    "MetadataScaling": "iolab.models.plan",
    "Phases": "iolab.models.plan",
    "Plan": "iolab.models.plan",
    "Precondition": "iolab.models.plan",
    "QdSearch": "iolab.models.plan",
    "RepeatPolicy": "iolab.models.plan",
    "SteadyRounds": "iolab.models.plan",
    "Workload": "iolab.models.plan",
    "Point": "iolab.models.point",
    "Target": "iolab.models.point",
    "TargetKind": "iolab.models.point",
    "PERCENTILES": "iolab.models.result",
    "DirectionResult": "iolab.models.result",
    "HostOutcome": "iolab.models.result",
    "LatencyStats": "iolab.models.result",
    "Result": "iolab.models.result",
    "Sample": "iolab.models.result",
    "SteadyState": "iolab.models.result",
    "StopRecord": "iolab.models.result",
    "primary_metric": "iolab.models.result",
    "PhaseRecord": "iolab.models.run",
    "PointRecord": "iolab.models.run",
    "Run": "iolab.models.run",
    "PointMetric": "iolab.models.side",
    "BlockDevice": "iolab.models.snapshot",
    "Change": "iolab.models.snapshot",
    "FileSystem": "iolab.models.snapshot",
    "NvmeSmart": "iolab.models.snapshot",
    "PciPort": "iolab.models.snapshot",
    "Snapshot": "iolab.models.snapshot",
    "TargetInfo": "iolab.models.snapshot",
}


def __getattr__(name: str) -> object:
    """The model `name`, from its module, loaded now if it was not."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
