"""How an array run names its points, and how a name is read back to its workload.

The runner names the points it plans; the doctor, the terminal and the report group stored points by
workload from those names alone (a stored point keeps its name and target, not how it was planned). One
module holds both directions so they cannot drift apart. For a workload W over devices in `--devices`
order:

- `W-together`: every device at once; `W-alone-DEV`: one device by itself;
- `W-xK`: the first K devices; `W-without-DEV`: every device but DEV (leave-one-out);
- `W-setI`: any other set, the I-th such set the user listed.

A set of one device is that device alone and a set of every device is the array together, so each set of
devices has one name and is measured once, whichever way it was asked for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

TOGETHER = "together"
ALONE = "alone-"
WITHOUT = "without-"
_COUNTED = re.compile(r"-(x\d+|set\d+)$")


def set_label(members: Sequence[str], devices: Sequence[str], ordinal: int) -> str:
    """The label of a set of `members` (device names, in `devices` order) among `devices`.

    `ordinal` numbers the sets that are neither the whole array, one device, the first K nor all but one.
    """
    count = len(members)
    if count == len(devices):
        return TOGETHER
    if count == 1:
        return ALONE + members[0]
    if count == len(devices) - 1:  # before xK: all but the last is the leave-one-out set of that drive
        (missing,) = set(devices) - set(members)
        return WITHOUT + missing
    if tuple(members) == tuple(devices[:count]):
        return f"x{count}"
    return f"set{ordinal}"


def needs_ordinal(members: Sequence[str], devices: Sequence[str]) -> bool:
    """Whether a set is named by its place in the user's list (`setI`) rather than by what it holds."""
    return set_label(members, devices, 0) == "set0"


def array_workload(name: str) -> str | None:
    """The workload an array point measures, from the point's name; None for a name of no array view."""
    if name.endswith("-" + TOGETHER):
        return name.removesuffix("-" + TOGETHER)
    for marker in ("-" + ALONE, "-" + WITHOUT):
        if marker in name:
            return name.rpartition(marker)[0]
    found = _COUNTED.search(name)
    return name[: found.start()] if found else None


def natural_key(name: str) -> list[int | str]:
    """Sort key reading each run of digits as a number, so devices come as people count them: nvme2n1
    before nvme10n1 (in --devices globs, tables and charts alike)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def alone_device(name: str) -> str | None:
    """The device an `W-alone-DEV` point measured by itself; None for any other name."""
    marker = "-" + ALONE
    return name.rpartition(marker)[2] if marker in name else None
