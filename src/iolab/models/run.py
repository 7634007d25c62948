"""A run: one invocation of iolab and the points it planned."""

from __future__ import annotations

from dataclasses import dataclass, field

from iolab.models.point import Point
from iolab.models.result import Result
from iolab.models.side import FIO_START, PointMetric, measured_from_ms

# Run statuses: running, complete, partial, failed, interrupted. "interrupted" is
# also derived when a "running" run's process is gone (killed), so nothing has
# to be written at the moment of death.


@dataclass
class Run:
    id: int
    started_at: float
    status: str
    label: str
    host: str
    command: str
    fio_version: str
    iolab_version: str
    targets: list[str] = field(default_factory=list)
    finished_at: float | None = None
    points_planned: int = 0
    points_done: int = 0
    points_failed: int = 0
    pid: int | None = None


# Point statuses that carry a result.
MEASURED = ("ok", "partial")


@dataclass
class PointRecord:
    """A stored point: what it ran, how it ended, its result if it finished, and the side figures stored
    with it by name (`iolab.models.side`)."""

    id: int
    run_id: int
    seq: int
    point: Point
    status: str
    error: str = ""
    result: Result | None = None
    started_at: float | None = None
    finished_at: float | None = None
    metrics: dict[str, PointMetric] = field(default_factory=dict)

    @property
    def measured(self) -> bool:
        """Finished with a result: 'ok', or 'partial' (a multi-host point some host did not finish)."""
        return self.status in MEASURED and self.result is not None

    def measured_from_ms(self) -> int:
        """Where fio's measured seconds start on this point's samplers' clock (`models.side.measured_from_ms`,
        with the start-up stored beside its samples where fio's stamp said it); 0 for a point without a result."""
        if self.result is None:
            return 0
        startup = self.metrics.get(FIO_START)
        return measured_from_ms(self.point, self.result, (startup.value or 0) if startup is not None else 0)


@dataclass(frozen=True)
class PhaseRecord:
    """One unmeasured phase of a run as it happened: what was done (`kind`: fill, precondition, discard,
    cache drop, pre command, post command) to what (`subject`: a target, a command line), when, for how
    long, and how it ended ("ok", or what went wrong). `point_id` is the point it ran before or after;
    None for a phase of a target (a fill, a precondition)."""

    kind: str
    subject: str
    started: float
    seconds: float
    outcome: str = "ok"
    point_id: int | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"
