"""File systems and mounts, from /proc/self/mountinfo."""

from __future__ import annotations

import os
from dataclasses import dataclass

from iolab.probe.root import Root

# File systems whose data lives in memory: a result on them measures RAM.
RAM_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "devtmpfs", "hugetlbfs"})


@dataclass(frozen=True)
class Mount:
    mount_point: str
    fs_type: str
    source: str
    major_minor: str
    options: str


def _unescape(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as octal (\\040)."""
    return field.encode().decode("unicode_escape") if "\\" in field else field


def read_mounts(root: Root) -> list[Mount]:
    """Every mount of the (possibly captured) host; empty when mountinfo is unreadable."""
    text = root.read_text("/proc/self/mountinfo") or ""
    mounts: list[Mount] = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        lfields, rfields = left.split(), right.split()
        if len(lfields) < 6 or len(rfields) < 2:
            continue
        mounts.append(
            Mount(
                mount_point=_unescape(lfields[4]),
                fs_type=rfields[0],
                source=_unescape(rfields[1]),
                major_minor=lfields[2],
                options=lfields[5] + ("," + rfields[2] if len(rfields) > 2 else ""),
            )
        )
    return mounts


def mount_of(path: str, root: Root) -> Mount | None:
    """The mount holding `path`: the longest mount point that is a prefix of it."""
    real = os.path.realpath(path)
    best: Mount | None = None
    for mount in read_mounts(root):
        mp = mount.mount_point
        inside = real == mp or real.startswith(mp.rstrip("/") + "/")
        if inside and (best is None or len(mp) >= len(best.mount_point)):
            best = mount
    return best
