"""Arrays of devices: all together, each alone, and growing subsets (1, 2, 4 ... N).

A 30-SSD server's slowdown was only found per device: one drive dipping
inside a run, and a larger set of drives sometimes slower than a smaller
one. So an array run measures the same workload three ways, and the
doctor's array rules compare devices with each other (outliers, in both
views) and device sets with their own members (scaling).
"""

from __future__ import annotations

import glob
from pathlib import Path

from iolab.errors import UserError
from iolab.models import Plan, Point, Target
from iolab.runner.targets import resolve_target

MODES = ("together", "alone", "scaling")


def expand_devices(specs: list[str]) -> list[str]:
    """Device paths from comma lists and globs (`/dev/nvme*n1`), in a stable order, without repeats."""
    paths: list[str] = []
    for spec in specs:
        for part in filter(None, (p.strip() for p in spec.split(","))):
            matches = sorted(glob.glob(part)) if glob.has_magic(part) else [part]
            if not matches:
                raise UserError(f"--devices {part!r} matches no device")
            paths.extend(m for m in matches if m not in paths)
    return paths


def group_target(members: list[Target]) -> Target:
    """Several block devices driven together; each job uses the smallest device's size."""
    names = ", ".join(Path(m.filename).name for m in members)
    return Target(
        path=f"{len(members)} devices ({names})",
        kind="group",
        filename=":".join(m.filename for m in members),
        size_bytes=min(m.size_bytes for m in members),
        writable=all(m.writable for m in members),
        members=tuple(m.filename for m in members),
    )


def resolve_members(specs: list[str], allow_write: bool, size: int | None) -> list[Target]:
    members = [resolve_target(p, allow_write, size) for p in expand_devices(specs)]
    for member in members:
        if member.kind != "block":
            raise UserError(f"--devices takes block devices; {member.path} is a {member.kind}")
    if len(members) < 2:
        raise UserError("--devices needs at least two block devices to compare")
    return members


def subset_sizes(count: int) -> list[int]:
    """1, 2, 4 ... and the whole array."""
    sizes, n = [], 1
    while n < count:
        sizes.append(n)
        n *= 2
    return sizes + [count]


def array_points(plan: Plan, members: list[Target], modes: tuple[str, ...]) -> list[Point]:
    """The plan's workloads over the array, in the requested modes (repeats are added by the caller)."""
    unknown = set(modes) - set(MODES)
    if unknown:
        raise UserError(f"unknown array mode {', '.join(sorted(unknown))}: choose from {', '.join(MODES)}")
    points: list[Point] = []
    for workload in plan.workloads:
        options = dict(workload.options)
        if "together" in modes:
            points.append(Point(f"{workload.name}-together", group_target(members), options))
        if "alone" in modes:
            points.extend(Point(f"{workload.name}-alone-{Path(m.filename).name}", m, options) for m in members)
        if "scaling" in modes:
            points.extend(
                Point(f"{workload.name}-x{k}", group_target(members[:k]), options)
                for k in subset_sizes(len(members))[:-1]
                if k > 1
            )
    return points
