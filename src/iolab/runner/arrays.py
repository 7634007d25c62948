"""Arrays of devices: all together, each alone, and sets of devices (1, 2, 4 ... N by default).

A 30-SSD server's slowdown was only found per device: one drive dipping
inside a run, and a larger set of drives sometimes slower than a smaller
one (30 drives gave 127 GB/s, 28 gave 131 and 24 gave 132). So an array run
measures the same workload three ways, and the doctor's array rules compare
devices with each other (outliers, in both views) and device sets with their
own members (scaling). Which sets is the user's to say (`--subsets`): the
first N devices for several N, every device but one (leave-one-out: which
drive's absence helps), or sets named device by device.
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path

from iolab.errors import UserError
from iolab.models import Plan, Point, Target
from iolab.models.array_names import alone_device, array_workload, natural_key, needs_ordinal, set_label
from iolab.runner.targets import pinned, resolve_target

MODES = ("together", "alone", "scaling")
DOUBLING = "doubling"
LEAVE_ONE_OUT = "leave-one-out"
DEFAULT_SUBSETS = (DOUBLING,)
SUBSETS_HELP = (
    "N (the first N devices in --devices order), doubling (1, 2, 4 ... all: the default), leave-one-out "
    "(every device but one, each in turn) or DEV+DEV+... (those devices, by name or path)"
)


def expand_devices(specs: list[str]) -> list[str]:
    """Device paths from comma lists and globs (`/dev/nvme*n1`), without repeats.

    A glob's matches come in natural order (nvme2n1 before nvme10n1), so "the first 24 devices" of
    `/dev/nvme*n1` are nvme0n1 to nvme23n1, not nvme0n1, nvme10n1, nvme11n1...
    """
    paths: list[str] = []
    for spec in specs:
        for part in filter(None, (p.strip() for p in spec.split(","))):
            matches = sorted(glob.glob(part), key=natural_key) if glob.has_magic(part) else [part]
            if not matches:
                raise UserError(f"--devices {part!r} matches no device")
            paths.extend(m for m in matches if m not in paths)
    return paths


def device_name(member: Target) -> str:
    """The name a device goes by in point names, tables and `--subsets`: its path's last part."""
    return Path(member.filename).name


def group_target(members: Sequence[Target]) -> Target:
    """Several block devices driven together; each job uses the smallest device's size."""
    names = ", ".join(device_name(m) for m in members)
    return pinned(
        Target(
            path=f"{len(members)} devices ({names})",
            kind="group",
            filename=":".join(m.filename for m in members),
            size_bytes=min(m.size_bytes for m in members),
            writable=all(m.writable for m in members),
            members=tuple(m.filename for m in members),
        )
    )


def resolve_members(specs: list[str], allow_write: bool, size: int | None) -> list[Target]:
    members = [resolve_target(p, allow_write, size) for p in expand_devices(specs)]
    for member in members:
        if member.kind != "block":
            raise UserError(f"--devices takes block devices; {member.path} is a {member.kind}")
    if len(members) < 2:
        raise UserError("--devices needs at least two block devices to compare")
    names = [device_name(m) for m in members]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(
            f"--devices: two devices are called {twice[0]} (the last part of their paths); name each by a path of its own name"
        )
    return members


def subset_sizes(count: int) -> list[int]:
    """1, 2, 4 ... and the whole array."""
    sizes, n = [], 1
    while n < count:
        sizes.append(n)
        n *= 2
    return sizes + [count]


def device_sets(members: Sequence[Target], subsets: Sequence[str]) -> list[tuple[Target, ...]]:
    """The sets `--subsets` asks for, each in `--devices` order, each once, in the order asked.

    `subsets` holds comma lists of terms (`SUBSETS_HELP`); UserError names a term that is none of them.
    """
    names = [device_name(m) for m in members]
    by_name = {
        **{m.path: m for m in members},
        **{m.filename: m for m in members},
        **dict(zip(names, members, strict=True)),
    }
    terms = [t.strip() for spec in subsets for t in spec.split(",") if t.strip()]
    found: dict[frozenset[str], tuple[Target, ...]] = {}
    for term in terms:
        for chosen in _term_sets(term, members, by_name):
            key = frozenset(m.filename for m in chosen)
            found.setdefault(key, tuple(m for m in members if m.filename in key))
    return list(found.values())


def _term_sets(term: str, members: Sequence[Target], by_name: dict[str, Target]) -> list[list[Target]]:
    """The device sets one `--subsets` term stands for."""
    count = len(members)
    if term == DOUBLING:
        return [list(members[:k]) for k in subset_sizes(count)]
    if term == LEAVE_ONE_OUT:
        return [[m for m in members if m is not left] for left in members]
    if term.isdigit():
        if not 1 <= int(term) <= count:
            raise UserError(f"--subsets {term}: the array has {count} devices, so a count goes from 1 to {count}")
        return [list(members[: int(term)])]
    return [_named_set(term, by_name)]


def _named_set(term: str, by_name: dict[str, Target]) -> list[Target]:
    """A `--subsets` term naming devices (`loop0+loop2`), each one of --devices, none twice."""
    chosen = [part.strip() for part in term.split("+")]
    unknown = [part for part in chosen if part not in by_name]
    if unknown and "+" not in term and "/" not in term:
        raise UserError(f"--subsets {term!r} is not a term iolab knows: write {SUBSETS_HELP}")
    if unknown:
        raise UserError(f"--subsets {term!r}: {unknown[0]!r} is not one of --devices")
    if len(set(chosen)) < len(chosen):
        raise UserError(f"--subsets {term!r} names a device twice")
    return [by_name[part] for part in chosen]


def array_points(
    plan: Plan, members: list[Target], modes: tuple[str, ...], subsets: Sequence[str] = DEFAULT_SUBSETS
) -> list[Point]:
    """The plan's workloads over the array, in the requested modes (repeats are added by the caller).

    A set is measured once however it was asked for: the first device of `doubling` is that device alone,
    the whole array is `together`.
    """
    planned = _planned_sets(members, modes, subsets)
    labels = _set_labels(members, planned)
    points: dict[str, Point] = {}
    for workload in plan.workloads:
        for label, chosen in zip(labels, planned, strict=True):
            target = chosen[0] if len(chosen) == 1 else group_target(chosen)
            point = Point(f"{workload.name}-{label}", target, dict(workload.options))
            points.setdefault(point.key, point)
    return list(points.values())


def _planned_sets(members: list[Target], modes: tuple[str, ...], subsets: Sequence[str]) -> list[tuple[Target, ...]]:
    """The sets of devices the modes ask for: the whole array, each device alone, the scaling subsets."""
    unknown = set(modes) - set(MODES)
    if unknown:
        raise UserError(f"unknown array mode {', '.join(sorted(unknown))}: choose from {', '.join(MODES)}")
    if tuple(subsets) != DEFAULT_SUBSETS and "scaling" not in modes:
        raise UserError("--subsets chooses the sets of the scaling mode: add scaling to --array-modes")
    planned: list[tuple[Target, ...]] = [tuple(members)] if "together" in modes else []
    planned += [(m,) for m in members] if "alone" in modes else []
    planned += device_sets(members, subsets) if "scaling" in modes else []
    return planned


def _set_labels(members: list[Target], planned: list[tuple[Target, ...]]) -> list[str]:
    """Each set's label (`x4`, `without-loop3`, a device's name), numbered where two would read alike."""
    names = [device_name(m) for m in members]
    labels, ordinal = [], 0
    for chosen in planned:
        chosen_names = [device_name(m) for m in chosen]
        ordinal += needs_ordinal(chosen_names, names)
        labels.append(set_label(chosen_names, names, ordinal))
    return labels


def describe_sets(members: Sequence[Target], points: Sequence[Point]) -> list[str]:
    """The array as a preview shows it: its devices in order, then each set of devices its points run
    together, once (`x28: 28 devices (nvme0n1 ... nvme27n1)`); runs of neighbours are shortened."""
    order = {m.filename: i for i, m in enumerate(members)}
    lines = [f"array: {len(members)} devices in this order: {_spans(members, range(len(members)))}"]
    seen: set[str] = set()
    for point in points:
        workload = array_workload(point.name)
        if point.target.kind != "group" or workload is None or point.target.filename in seen:
            continue
        seen.add(point.target.filename)
        label = point.name.removeprefix(workload + "-")
        chosen = sorted(order[f] for f in point.target.members)
        lines.append(f"  {label}: {len(chosen)} devices ({_spans(members, chosen)})")
    return lines + _alone_line(members, points, order)


def _alone_line(members: Sequence[Target], points: Sequence[Point], order: dict[str, int]) -> list[str]:
    """The preview's line for the devices measured one at a time, if any are."""
    alone = sorted({order[p.target.filename] for p in points if p.target.kind == "block" and alone_device(p.name)})
    return [f"  alone: {len(alone)} devices one at a time ({_spans(members, alone)})"] if alone else []


def _spans(members: Sequence[Target], indices: Sequence[int]) -> str:
    """Device names at `indices` (ascending), three or more neighbours in a row written `first ... last`."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    parts = []
    for run in runs:
        names = [device_name(members[i]) for i in run]
        parts.append(f"{names[0]} ... {names[-1]}" if len(run) >= 3 else ", ".join(names))
    return ", ".join(parts)
