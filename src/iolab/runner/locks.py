"""One run per target at a time: an exclusive flock per target under $IOLAB_HOME/locks.

Two runs on one device or directory would measure each other, and two runs
sharing a scratch directory could meet on one file. A run takes a lock for
each target before it starts; a second run on the same target exits 2
naming the run holding it. flock, because the kernel releases it when the
holder dies, however it dies: a killed run never leaves a stale lock.

A target's lock is named by what it is, not how it was spelled: a block
device by its device number (`/dev/loop0` and a by-id link are one), a
file or directory by its real path. An array locks each member.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from iolab.errors import UserError
from iolab.models import Target
from iolab.private import private_dir


def lock_names(target: Target) -> list[str]:
    """What identifies the target for locking (its members for an array)."""
    paths = target.members or (target.path,)
    names = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            names.append(os.path.realpath(path))
            continue
        if stat.S_ISBLK(info.st_mode):
            names.append(f"block {os.major(info.st_rdev)}:{os.minor(info.st_rdev)}")
        else:
            names.append(os.path.realpath(path))
    return names


class TargetLocks:
    """Exclusive locks on targets, held from `acquire` until `release` (or the process ends)."""

    def __init__(self, home: Path) -> None:
        self.directory = home / "locks"
        self.held: list[int] = []

    def acquire(self, targets: Iterable[Target], holder: str) -> None:
        """Lock every target, or none: UserError naming the run that holds one."""
        names = sorted({name for target in targets for name in lock_names(target)})
        private_dir(self.directory)
        try:
            for name in names:
                path = self.directory / (hashlib.sha256(name.encode()).hexdigest()[:24] + ".lock")
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    other = os.pread(fd, 512, 0).decode(errors="replace").strip() or "another iolab run"
                    os.close(fd)
                    raise UserError(
                        f"{name.removeprefix('block ')} is in use by {other}; wait for it to end, or stop it"
                    ) from None
                self.held.append(fd)
        except BaseException:
            self.release()
            raise
        self.name_holder(holder)

    def name_holder(self, holder: str) -> None:
        """Say in every held lock who holds it (shown to a run that finds it taken)."""
        for fd in self.held:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{holder} (pid {os.getpid()})".encode(), 0)

    def release(self) -> None:
        for fd in self.held:
            os.close(fd)  # closing the last descriptor drops the flock
        self.held = []
