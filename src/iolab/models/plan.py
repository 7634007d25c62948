"""What a run is asked to do, before targets are resolved into `Point`s."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Workload:
    """One row of an expanded plan: fio options for a named workload.

    `target` is a path as the user wrote it, or None to run on each of the
    plan's (or command line's) default targets. The runner resolves targets,
    checks their safety and turns each workload x target x repeat into a Point.
    """

    name: str
    options: dict[str, str] = field(default_factory=dict)
    target: str | None = None


@dataclass
class Plan:
    """A named list of workloads with the settings that apply to all of them."""

    name: str
    workloads: list[Workload]
    targets: list[str] = field(default_factory=list)
    repeat: int = 1
