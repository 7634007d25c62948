"""Support bundles: the raw files a snapshot was built from, in one .tar.gz.

`save_bundle` writes every path a recording `Root` touched, keeping sysfs
symlinks as symlinks (the PCIe chain is read from where they point), plus
captured command output and statvfs answers. `open_bundle` unpacks one into
a temporary tree that a `Root` can read on any machine.
"""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from iolab.errors import UserError
from iolab.private import AS_UMASK, write_private
from iolab.probe.root import Root


class _Writer:
    """Adds host paths to a tar once each, walking symlinks component by component."""

    def __init__(self, tar: tarfile.TarFile) -> None:
        self.tar = tar
        self.done: set[str] = set()

    def add(self, path: str, depth: int = 0) -> None:
        if path in self.done or depth > 40:
            return
        self.done.add(path)
        parts = path.strip("/").split("/")
        current = ""
        for i, part in enumerate(parts):
            current = f"{current}/{part}"
            if os.path.islink(current):
                self._symlink(current)
                target = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
                rest = "/".join(parts[i + 1 :])
                self.add(f"{target}/{rest}" if rest else target, depth + 1)
                return
        if os.path.isdir(path):
            info = tarfile.TarInfo(path.lstrip("/"))
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            self.tar.addfile(info)
        elif os.path.isfile(path):
            try:
                with open(path, "rb") as handle:
                    data = handle.read()  # one big read() fails on /proc/sys (ENOMEM)
            except OSError:
                return
            self.file(path, data)

    def _symlink(self, path: str) -> None:
        if f"link:{path}" in self.done:
            return
        self.done.add(f"link:{path}")
        info = tarfile.TarInfo(path.lstrip("/"))
        target = os.readlink(path)
        if os.path.isabs(target):
            # /etc/systemd links are absolute; made relative so they resolve inside the tree.
            target = os.path.relpath(target, os.path.dirname(path))
        info.type, info.linkname = tarfile.SYMTYPE, target
        self.tar.addfile(info)

    def file(self, path: str, data: bytes) -> None:
        info = tarfile.TarInfo(path.lstrip("/"))
        info.size, info.mode = len(data), 0o644
        self.tar.addfile(info, io.BytesIO(data))


def save_bundle(root: Root, dest: str | os.PathLike[str]) -> int:
    """Write what a recording live `root` read into `dest`; returns the number of entries."""
    if not root.is_live:
        raise UserError("--save captures the live machine; it cannot be combined with --root")
    packed = io.BytesIO()  # a few hundred KiB of /proc and /sys text: built in memory, then written once
    try:
        with tarfile.open(fileobj=packed, mode="w:gz") as tar:
            writer = _Writer(tar)
            for path in sorted(root.recorded):
                writer.add(path)
            for path, data in sorted(root.captured.items()):
                writer.file(path, data)
            count = len(tar.getmembers())
        write_private(Path(dest), packed.getvalue(), mode=AS_UMASK)  # a link planted at dest is replaced
        return count
    except OSError as exc:
        raise UserError(f"cannot write bundle {dest}: {exc.strerror or exc}") from None


@contextmanager
def open_bundle(path: str | os.PathLike[str]) -> Iterator[Root]:
    """A Root over the unpacked bundle, removed again on exit."""
    if not Path(path).is_file():
        raise UserError(f"bundle {path} not found; create one with `iolab probe --save FILE.tar.gz`")
    with tempfile.TemporaryDirectory(prefix="iolab-bundle-") as tmp:
        try:
            with tarfile.open(path, "r:*") as tar:
                tar.extractall(tmp, filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise UserError(
                f"bundle {path} is not a readable .tar.gz ({exc}); capture it again with `iolab probe --save`"
            ) from None
        yield Root(tmp)
