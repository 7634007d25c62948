"""Reading a user's input file (plan, job file, host file, fio output) without surprises.

A path can name a FIFO, /dev/zero or a 50 GB log: reading it whole would
block or exhaust memory. Only regular files up to a size limit are read,
and text must be UTF-8; each refusal is a one-line UserError.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from iolab import guards
from iolab.errors import UserError

MAX_INPUT_BYTES = 256 << 20  # a fio JSON+ output of many jobs is tens of MB; plans are kilobytes


class Refused(Exception):
    """A path that is not a regular file of at most the limit: `kind` is "a directory", "not a regular file"
    or "too large" (then `size` is its size in bytes)."""

    def __init__(self, kind: str, size: int = 0) -> None:
        super().__init__(kind)
        self.kind = kind
        self.size = size


def read_regular(
    path: str | Path, limit: int = MAX_INPUT_BYTES, *, dir_fd: int | None = None, follow: bool = True
) -> bytes:
    """The bytes of `path`, a regular file of at most `limit` bytes (links followed, as a user means them, unless
    `follow` is False: then a link is an OSError, ELOOP). `dir_fd`: `path` is relative to that directory.

    Refused otherwise, OSError when it cannot be opened or read. Opened without blocking (a FIFO would
    wait for a writer forever) and read by the size `fstat` gave, then on for a file still growing, at
    most `limit` and one byte more: one read of the limit for every file allocated that much each time
    (44 ms for 1,000 fio outputs of 13 KB, against 14 ms).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW), dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused("a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file")
        if not follow and dir_fd is not None and _linked_in(info, dir_fd):
            raise Refused("a hard link someone else could have made")
        if info.st_size > limit:
            raise Refused("too large", info.st_size)
        parts = []
        left = limit + 1
        want = min(info.st_size + 1, left)
        while left > 0:
            part = os.read(fd, want)
            if not part:
                break
            parts.append(part)
            left -= len(part)
            want = min(left, 1 << 20)
        return b"".join(parts)
    finally:
        os.close(fd)


HARD_LINKS = guards.register(
    "import-hard-links",
    "a file found in a folder (not named) that has other names, where someone but its owner could have made "
    "them: a hard link to a root-only file, made where fs.protected_hardlinks is 0",
    f"{__name__}._linked_in",
)


def _linked_in(info: os.stat_result, dir_fd: int) -> bool:
    """Whether a file found in the folder `dir_fd` has other names that someone but its owner could have made there:
    wherever `fs.protected_hardlinks` is 0 a user may hard-link a file they cannot read into a folder they can
    write, and `O_NOFOLLOW` does not see it. A file of one name is read; one of several only when its owner owns
    the folder and no one else may write it (group or others, an ACL's named writers among them as its mask, the
    sticky bit no help: anyone may add a name to /tmp)."""
    if not guards.active(HARD_LINKS.name) or info.st_nlink == 1:
        return False
    folder = os.fstat(dir_fd)
    return info.st_uid != folder.st_uid or bool(folder.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def read_input(path: str | Path, what: str, limit: int = MAX_INPUT_BYTES) -> str:
    """The text of `path`, a regular file of at most `limit` bytes, or UserError naming `what` it was to be."""
    try:
        data = read_regular(path, limit)
    except Refused as exc:
        if exc.kind == "too large":
            raise UserError(f"{what} {path} is {exc.size >> 20} MiB; iolab reads at most {limit >> 20} MiB") from None
        raise UserError(f"cannot read {what} {path}: it is {exc.kind}; give a file") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8-sig")  # a byte-order mark (Windows editors write one) is not the text's
    except UnicodeDecodeError as exc:
        raise UserError(f"{what} {path} is not UTF-8 text (byte {exc.start}); give the file as text") from None
