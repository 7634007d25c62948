"""Mounts on which another user decides what a directory's owner and mode say, read for pathchain's rule.

A FUSE file system answers every lookup and stat from its daemon: one another user mounted (mountinfo's super
option `user_id=N`; mounting needs only a directory of theirs, and `allow_other` lets root in) can call its root
root's own 0755 directory and still hand fio a link where it opens a name. An SMB share mounted `noperm` is
checked by the server alone, with the mount's credentials: every local user may change every directory on it,
whatever its modes say. Neither shows in a stat. So the rule asks the mount itself: statfs's magic number picks
out the two kinds (one system call a directory), and only for them is /proc/self/mountinfo read (some 250 us)
for the options of the superblock the directory's device number names.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import Any

FUSE_MAGIC = 0x65735546  # FUSE_SUPER_MAGIC (fuse and fuseblk)
SMB_MAGICS = frozenset({0xFF534D42, 0xFE534D42, 0x517B})  # CIFS_SUPER_MAGIC, SMB2_SUPER_MAGIC, SMB_SUPER_MAGIC
MOUNTINFO = "/proc/self/mountinfo"


def mount_problem(fd: int, trusted: Callable[[int], bool]) -> str:
    """Why the mount holding the open descriptor `fd` (an O_PATH one too) lets another user decide what is in it,
    or "": a FUSE file system a user other than root or you mounted, or an SMB share mounted noperm."""
    magic = _magic(fd)
    if magic is not None and magic != FUSE_MAGIC and magic not in SMB_MAGICS:
        return ""
    dev = os.fstat(fd).st_dev
    found = super_options(_mountinfo(), f"{os.major(dev)}:{os.minor(dev)}")
    if found is None:
        return "" if magic is None else "on a FUSE or SMB mount whose options could not be read"
    return judge(*found, trusted)


def judge(fs_type: str, options: str, trusted: Callable[[int], bool]) -> str:
    """The problem of a mount of type `fs_type` with superblock `options` (mountinfo's last field), or ""."""
    words = options.split(",")
    if fs_type == "fuse" or fs_type.startswith(("fuse.", "fuseblk")):
        users = [w.removeprefix("user_id=") for w in words if w.startswith("user_id=")]
        if not users or not users[0].isdigit():
            return f"on a FUSE file system ({fs_type}) whose mounting user mountinfo does not say"
        uid = int(users[0])
        return (
            ""
            if trusted(uid)
            else f"on a FUSE file system ({fs_type}) uid {uid} mounted, whose daemon decides what every name there is"
        )
    if fs_type in ("cifs", "smb3", "smbfs") and "noperm" in words:
        return f"on an SMB share ({fs_type}) mounted noperm, where every local user may change every directory"
    return ""


def super_options(text: str, major_minor: str) -> tuple[str, str] | None:
    """The file system type and superblock options of the mount of device `major_minor` in mountinfo `text`
    (every bind mount of one superblock shows the same ones), or None when no line names the device."""
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if sep and len(fields) >= 3 and fields[2] == major_minor and len(tail) >= 2:
            return tail[0], tail[2] if len(tail) > 2 else ""
    return None


def _mountinfo() -> str:
    try:
        with open(MOUNTINFO, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _magic(fd: int) -> int | None:
    """statfs(2)'s f_type of the open descriptor, or None where it cannot be asked (then mountinfo decides)."""
    import ctypes  # here only: the walk asks, `iolab --help` never does

    libc = _libc()
    if libc is None:
        return None
    buffer = (ctypes.c_long * 32)()  # struct statfs is 120 bytes on 64-bit Linux; f_type is its first word
    if libc.statfs(f"/proc/self/fd/{fd}".encode(), buffer) != 0:
        return None
    return buffer[0] & 0xFFFFFFFF


@cache
def _libc() -> Any:
    """The C library's handle (None where it cannot be loaded), opened once."""
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
