"""Support bundles: the raw files a snapshot was built from, in one .tar.gz.

`save_bundle` writes the tape of a recording `Root`: every file as the
snapshot read it, every directory and link it walked (sysfs symlinks stay
links: the PCIe chain is read from where they point), the tape's other
answers (`Tape.answers`: a name unreadable, a FIFO, a listing as it was
listed; a tree cannot hold them), plus captured command output and statvfs
answers. `open_bundle` unpacks one into
a temporary tree that a `Root` can read on any machine: in a `$TMPDIR` no
other user can change (`pathchain`: extraction writes by name), owned by
whoever unpacks it, and refused past `MAX_UNPACKED` bytes.
"""

from __future__ import annotations

import io
import json
import os
import stat
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from iolab import pathchain
from iolab.errors import UserError
from iolab.private import AS_UMASK, write_private
from iolab.probe.root import ANSWERS_FILE, Root
from iolab.probe.tape import Tape


def _entries(tape: Tape) -> Iterator[tuple[tarfile.TarInfo, bytes | None]]:
    """Tar entries for what the tape holds: directories 0755, files 0644 (empty where only seen), links relative."""
    for name in sorted(d for d in tape.dirs if d != "/"):
        info = tarfile.TarInfo(name.lstrip("/"))
        info.type, info.mode = tarfile.DIRTYPE, 0o755
        yield info, None
    for name, target in sorted(tape.links.items()):
        info = tarfile.TarInfo(name.lstrip("/"))
        if os.path.isabs(target):
            # /etc/systemd links are absolute; made relative so they resolve inside the tree.
            target = os.path.relpath(target, os.path.dirname(name))
        info.type, info.linkname = tarfile.SYMTYPE, target
        yield info, None
    for name, data in sorted({**dict.fromkeys(tape.others, b""), **tape.files}.items()):
        yield _file(name, data), data  # a name only seen (listed, resolved, a device) is there, empty


def _file(name: str, data: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name.lstrip("/"))
    info.size, info.mode = len(data), 0o644
    return info


def save_bundle(root: Root, dest: str | os.PathLike[str]) -> int:
    """Write what a recording live `root` read into `dest`; returns the number of entries."""
    if not root.is_live or root.tape is None:
        raise UserError("--save captures the live machine; it cannot be combined with --root")
    packed = io.BytesIO()  # a few hundred KiB of /proc and /sys text: built in memory, then written once
    try:
        with tarfile.open(fileobj=packed, mode="w:gz") as tar:
            for info, data in _entries(root.tape):
                tar.addfile(info, None if data is None else io.BytesIO(data))
            answers = json.dumps(root.tape.answers(), indent=1).encode()
            for path, data in sorted({**root.captured, ANSWERS_FILE: answers}.items()):
                tar.addfile(_file(path, data), io.BytesIO(data))
            count = len(tar.getmembers())
        write_private(Path(dest), packed.getvalue(), mode=AS_UMASK)  # a link planted at dest is replaced
        return count
    except OSError as exc:
        raise UserError(f"cannot write bundle {dest}: {exc.strerror or exc}") from None


# A bundle holds a few hundred KiB; what unpacks to more than this is not one (a decompression bomb).
MAX_UNPACKED = 256 << 20


@contextmanager
def open_bundle(path: str | os.PathLike[str]) -> Iterator[Root]:
    """A Root over the unpacked bundle, removed again on exit."""
    handle = _opened(path)
    pathchain.check(tempfile.gettempdir())  # tarfile writes by name: a $TMPDIR another user can change is refused
    with handle, tempfile.TemporaryDirectory(prefix="iolab-bundle-") as tmp:
        try:
            with tarfile.open(fileobj=handle, mode="r:*") as tar:
                tar.extractall(tmp, filter=_Unpacked().filter)
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise UserError(
                f"bundle {path} is not a readable .tar.gz ({exc}); capture it again with `iolab probe --save`"
            ) from None
        yield Root(tmp, shown_as=f"bundle {path}")


def _opened(path: str | os.PathLike[str]) -> io.BufferedReader:
    """The bundle file, opened once without blocking (a FIFO put at its name is not waited on) and only if it is
    a regular file; UserError otherwise."""
    missing = UserError(f"bundle {path} not found; create one with `iolab probe --save FILE.tar.gz`")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        raise missing from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise missing
    return open(fd, "rb")


# None: tarfile sets no owner (documented for extraction filters; typeshed types these as int and str only).
_NO_OWNER: dict[str, Any] = dict.fromkeys(("uid", "gid", "uname", "gname"))


class _Unpacked:
    """tarfile's "data" filter (no link out of the tree, no device or FIFO, no set-id bit, no write by group or
    others), every entry owned by whoever unpacks it (a member's uid would otherwise be set, as root), and at
    most MAX_UNPACKED bytes in all."""

    def __init__(self) -> None:
        self.size = 0

    def filter(self, member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo:
        kept = tarfile.data_filter(member, dest)
        self.size += kept.size
        if self.size > MAX_UNPACKED:
            raise tarfile.TarError(f"it unpacks to more than {MAX_UNPACKED >> 20} MiB")
        return kept.replace(**_NO_OWNER, deep=False)
