"""Sweep expansion: base options x axes (cross product, zip groups) - exclude rules.

Every axis is a list of fio values. Axes are crossed in the order given;
axes named together in a zip group move in lockstep (same length, i-th
values together) and take the position of the group's first axis. The
special axis `target` sets `Workload.target` instead of an option; host
axes (a plan's `[host]` table) come after the others and set
`Workload.host_settings`, so an A/B of a setting alternates A, B, A, B.
Workload names say what varies: the prefix, then one token per axis with
more than one value, e.g. ``randread-4k-qd32-j4``.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence

from iolab.errors import UserError
from iolab.models.plan import Workload
from iolab.plan.exclude import ExcludeRule, compile_exclude
from iolab.plan.limits import MAX_POINTS

TARGET_AXIS = "target"

# Short name tokens for the axes storage people read at a glance; any other
# axis shows as key+value (e.g. "rate_iops5000").
_TOKEN_PREFIX = {
    "rw": "",
    "readwrite": "",
    "bs": "",
    "ioengine": "",
    "iodepth": "qd",
    "numjobs": "j",
    "rwmixread": "mix",
    "size": "size",
    "runtime": "t",
    # host settings (`iolab.models.host_settings`)
    "scheduler": "sched_",
    "governor": "gov_",
    "nr_requests": "nr",
    "wbt_lat_usec": "wbt",
    "read_ahead_kb": "ra",
    "rq_affinity": "rqaff",
    "nomerges": "nomerges",
}


def expand(
    name: str,
    base: Mapping[str, str],
    axes: Mapping[str, Sequence[str]],
    zip_groups: Sequence[Sequence[str]] = (),
    exclude: Sequence[ExcludeRule | str] = (),
    target: str | None = None,
    where: str = "plan",
    host: Mapping[str, Sequence[str]] | None = None,
) -> list[Workload]:
    """The workloads of one sweep, in axis order (the last axis varies fastest).

    `base` options apply to every workload and are overridden by axis
    values; `host` holds the host-setting axes, crossed after `axes`.
    Raises UserError (prefixed with `where`) for an empty axis, a zip group
    naming an unknown axis or axes of different lengths, or an exclude rule
    that does not parse.
    """
    host = host or {}
    axes = {**axes, **host}
    _check_axes(axes, host, where)
    rules = _rules(exclude, [*base, *axes], where)
    dimensions = _dimensions(axes, zip_groups, where)
    varying = [axis for axis, values in axes.items() if len(values) > 1 and axis != TARGET_AXIS]
    workloads: list[Workload] = []
    for combination in itertools.product(*dimensions):
        setting = {k: v for group in combination for k, v in group.items()}
        workload = _workload(name, base, setting, host, varying, target)
        if not any(rule.matches({**workload.options, **setting}) for rule in rules):
            workloads.append(workload)
    _check_unique(workloads, where)
    return workloads


def _rules(exclude: Sequence[ExcludeRule | str], names: Sequence[str], where: str) -> list[ExcludeRule]:
    """The sweep's exclude rules, compiled against the option and axis names they may use."""
    return [
        rule if isinstance(rule, ExcludeRule) else compile_exclude(rule, names, f"{where}: exclude[{i}]")
        for i, rule in enumerate(exclude)
    ]


def _check_axes(axes: Mapping[str, Sequence[str]], host: Mapping[str, Sequence[str]], where: str) -> None:
    """Refuse an empty axis or one that repeats a value, naming its table."""
    for axis, values in axes.items():
        table = "host" if axis in host else "axes"
        if len(values) == 0:
            raise UserError(f"{where}: {table}.{axis} is empty; give at least one value")
        if len(set(values)) != len(values):
            raise UserError(f"{where}: {table}.{axis} repeats a value: {list(values)}")


def _workload(
    name: str,
    base: Mapping[str, str],
    setting: Mapping[str, str],
    host: Mapping[str, Sequence[str]],
    varying: Sequence[str],
    target: str | None,
) -> Workload:
    """One combination of axis values as a workload: fio options, target and host settings apart."""
    options = {**base, **{k: v for k, v in setting.items() if k != TARGET_AXIS and k not in host}}
    return Workload(
        name=workload_name(name, {axis: setting[axis] for axis in varying}),
        options=options,
        target=setting.get(TARGET_AXIS, target),
        host_settings={k: v for k, v in setting.items() if k in host},
    )


def _dimensions(
    axes: Mapping[str, Sequence[str]], zip_groups: Sequence[Sequence[str]], where: str
) -> list[list[dict[str, str]]]:
    """One list of partial settings per independent dimension of the product."""
    zipped = _zipped(axes, zip_groups, where)
    dimensions: list[list[dict[str, str]]] = []
    for axis, values in axes.items():
        members = zipped.get(axis)
        if members is None:
            dimensions.append([{axis: v} for v in values])
        elif members[0] == axis:
            dimensions.append(
                [dict(zip(members, row, strict=True)) for row in zip(*(axes[a] for a in members), strict=True)]
            )
    count = math.prod(len(d) for d in dimensions)
    if count > MAX_POINTS:
        raise UserError(f"{where}: the axes make {count} workloads; a plan may have at most {MAX_POINTS}: split it")
    return dimensions


def _zipped(
    axes: Mapping[str, Sequence[str]], zip_groups: Sequence[Sequence[str]], where: str
) -> dict[str, Sequence[str]]:
    """Each zipped axis's group, refusing unknown axes, an axis in two groups and groups of unequal lengths."""
    zipped: dict[str, Sequence[str]] = {}
    for i, group in enumerate(zip_groups):
        for axis in group:
            if axis not in axes:
                raise UserError(f"{where}: zip[{i}] names {axis!r}, which is not an axis")
            if axis in zipped:
                raise UserError(f"{where}: zip[{i}]: axis {axis!r} is already in another zip group")
            zipped[axis] = group
        lengths = {axis: len(axes[axis]) for axis in group}
        if len(set(lengths.values())) > 1:
            raise UserError(f"{where}: zip[{i}] axes must have the same number of values, got {lengths}")
    return zipped


def workload_name(prefix: str, varying: Mapping[str, str]) -> str:
    """`prefix` plus a token per varying axis, safe as a file-name component."""
    tokens = [prefix] if prefix else []
    for axis, value in varying.items():
        token = f"{_TOKEN_PREFIX.get(axis, axis)}{value}"
        tokens.append(re.sub(r"[^A-Za-z0-9._%+=]+", "_", token))
    return "-".join(tokens) or "job"


def _check_unique(workloads: Sequence[Workload], where: str) -> None:
    seen: set[tuple[str, str | None]] = set()
    for workload in workloads:
        key = (workload.name, workload.target)
        if key in seen:
            raise UserError(f"{where}: two workloads are both named {workload.name!r}; give the sweeps different names")
        seen.add(key)
