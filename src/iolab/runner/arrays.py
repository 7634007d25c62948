"""Arrays of devices: all together, each alone, and growing subsets (1, 2, 4 ... N).

The 30-SSD case (seed 000) was only solvable per device: one drive dipping
inside a run, and a larger set of drives sometimes slower than a smaller
one. So an array run measures the same workload three ways, and the
analysis compares devices with each other (outliers, in both views) and
device counts with each other (scaling efficiency, non-monotonic drops).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

from iolab.errors import UserError
from iolab.models import Finding, Plan, Point, Target
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
        path=f"{len(members)} devices ({names})", kind="group", filename=":".join(m.filename for m in members),
        size_bytes=min(m.size_bytes for m in members), writable=all(m.writable for m in members),
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
            points.extend(Point(f"{workload.name}-x{k}", group_target(members[:k]), options)
                          for k in subset_sizes(len(members))[:-1] if k > 1)
    return points


@dataclass
class ArrayView:
    """Bandwidth per device together and alone, and aggregate per device set, for one workload."""

    workload: str
    together: dict[str, float]
    alone: dict[str, float]
    sets: list[tuple[tuple[str, ...], float]]


def array_views(records, device_bw: dict[int, dict[str, float]]) -> list[ArrayView]:  # noqa: ANN001
    """Group a run's array points by workload into the three views."""
    views: dict[str, ArrayView] = {}
    for record in records:
        if record.result is None:
            continue
        name, target = record.point.name, record.point.target
        total = sum(d.bw_bytes for d in record.result.directions.values())
        if target.kind == "group":
            base = name.removesuffix("-together").rpartition("-x")[0] if not name.endswith("-together") else name.removesuffix("-together")
            view = views.setdefault(base, ArrayView(base, {}, {}, []))
            view.sets.append((tuple(os.path.basename(m) for m in target.members), total))
            if name.endswith("-together"):
                view.together = device_bw.get(record.id, {})
        elif "-alone-" in name:
            base, _, device = name.rpartition("-alone-")
            views.setdefault(base, ArrayView(base, {}, {}, [])).alone[device] = total
    return list(views.values())


def array_findings(view: ArrayView) -> list[Finding]:
    """Outlier devices (together and alone), their comparison, and scaling across device counts."""
    from iolab.analysis.outliers import compare_views, find_outliers
    from iolab.analysis.scaling import scaling_table

    findings: list[Finding] = []
    reports = {}
    for label, values in (("together", view.together), ("alone", view.alone)):
        if values:
            reports[label] = find_outliers(values, view=label, metric="bandwidth")
            findings += reports[label].findings(subject=f"{view.workload} ({label})")
    if len(reports) == 2:
        findings += compare_views(reports["together"], reports["alone"])
    if view.sets:
        sets = view.sets + [((device,), bw) for device, bw in view.alone.items()]
        findings += scaling_table(sets, view.alone or None).findings(subject=view.workload)
    return findings
