"""File systems and mounts, from /proc/self/mountinfo."""

from __future__ import annotations

import os
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from iolab.models.snapshot import NETWORK_FILESYSTEMS, RAM_FILESYSTEMS, FileSystem
from iolab.probe.root import Root


@dataclass(frozen=True)
class Mount:
    mount_point: str
    fs_type: str
    source: str
    major_minor: str
    options: str


def _unescape(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as octal (\\040) and writes every other byte as it
    is: only those escapes are read (Python's unicode_escape read the UTF-8 of "/mnt/données\\040x" as Latin-1)."""
    return _OCTAL.sub(lambda m: chr(int(m[1], 8)), field)


_OCTAL = re.compile(r"\\([0-7]{3})")


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
    """The mount holding `path`: the longest mount point that is a prefix of it, once `root` resolved it (a
    captured host's path is resolved in its tree, by its links, never by this machine's)."""
    real = root.realpath(path)
    best: Mount | None = None
    for mount in read_mounts(root):
        mp = mount.mount_point
        inside = real == mp or real.startswith(mp.rstrip("/") + "/")
        if inside and (best is None or len(mp) >= len(best.mount_point)):
            best = mount
    return best


def ram_backed_device(name: str, root: Root, ram_filesystems: frozenset[str], depth: int = 0) -> bool:
    """Whether a block device (kernel name) keeps its data in RAM: zram, brd (ram*), or a loop device whose
    backing file lives on a RAM file system (or on another such device): its I/O is memory's, whatever
    file system sits on it."""
    if name.startswith(("zram", "ram", "brd")):
        return True
    backing = (root.read_text(f"/sys/block/{name}/loop/backing_file") or "").strip()
    if not backing or depth > 4:
        return False
    mount = mount_of(backing, root)
    if mount is None:
        return False
    if mount.fs_type in ram_filesystems:
        return True
    under = os.path.basename(mount.source) if mount.source.startswith("/dev/") else ""
    return bool(under) and ram_backed_device(under, root, ram_filesystems, depth + 1)


# Kernel-internal file systems that say nothing about storage.
PSEUDO_FILESYSTEMS = frozenset(
    {
        "proc",
        "sysfs",
        "devpts",
        "cgroup",
        "cgroup2",
        "securityfs",
        "debugfs",
        "tracefs",
        "configfs",
        "pstore",
        "bpf",
        "mqueue",
        "fusectl",
        "binfmt_misc",
        "autofs",
        "efivarfs",
        "rpc_pipefs",
        "nsfs",
        "selinuxfs",
        "hugetlbfs",
    }
)


def read_filesystems(root: Root, statvfs_mounts: AbstractSet[str] = frozenset()) -> list[FileSystem]:
    """Storage-relevant mounts with options and fullness.

    statvfs is asked only of block-backed mounts, RAM file systems and the
    mounts named in `statvfs_mounts` (targets): asking a hung network mount
    would block the probe.
    """
    by_mount: dict[str, FileSystem] = {}
    for mount in read_mounts(root):
        if mount.fs_type in PSEUDO_FILESYSTEMS:
            continue
        block_backed = not mount.major_minor.startswith("0:")
        wanted = block_backed or mount.fs_type in RAM_FILESYSTEMS or mount.mount_point in statvfs_mounts
        usage = root.statvfs(mount.mount_point) if wanted else None
        read_ahead = None
        if mount.fs_type in NETWORK_FILESYSTEMS:
            read_ahead = root.read_int(f"/sys/class/bdi/{mount.major_minor}/read_ahead_kb")
        by_mount[mount.mount_point] = FileSystem(
            mount_point=mount.mount_point,
            fs_type=mount.fs_type,
            source=mount.source,
            major_minor=mount.major_minor,
            options=mount.options.split(","),
            size_bytes=usage["size_bytes"] if usage else None,
            used_bytes=usage["used_bytes"] if usage else None,
            avail_bytes=usage["avail_bytes"] if usage else None,
            read_ahead_kb=read_ahead,
        )
    return list(by_mount.values())


def filesystem_of(path: str, filesystems: list[FileSystem]) -> FileSystem | None:
    """The file system holding `path` (as written, no symlink resolution)."""
    best: FileSystem | None = None
    for fs in filesystems:
        mp = fs.mount_point
        inside = path == mp or path.startswith(mp.rstrip("/") + "/")
        if inside and (best is None or len(mp) >= len(best.mount_point)):
            best = fs
    return best
