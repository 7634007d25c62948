"""Reading a user's input file (plan, job file, host file, fio output) without surprises.

A path can name a FIFO, /dev/zero or a 50 GB log: reading it whole would
block or exhaust memory. Only regular files up to a size limit are read,
and text must be UTF-8; each refusal is a one-line UserError.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from iolab.errors import UserError

MAX_INPUT_BYTES = 256 << 20  # a fio JSON+ output of many jobs is tens of MB; plans are kilobytes


def read_input(path: str | Path, what: str, limit: int = MAX_INPUT_BYTES) -> str:
    """The text of `path`, a regular file of at most `limit` bytes, or UserError naming `what` it was to be."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise UserError(f"cannot read {what} {path}: it is {kind}; give a file")
        if info.st_size > limit:
            raise UserError(f"{what} {path} is {info.st_size >> 20} MiB; iolab reads at most {limit >> 20} MiB")
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{what} {path} is not UTF-8 text (byte {exc.start}); give the file as text") from None
