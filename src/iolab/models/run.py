"""A run: one invocation of iolab and the points it planned."""

from __future__ import annotations

from dataclasses import dataclass, field

# Status of a run as stored; "interrupted" is derived when a "running" run's
# process is gone (killed), so nothing has to be written at the moment of death.
RUN_STATUSES = ("running", "complete", "partial", "failed", "interrupted")


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
