"""fio's temporary work directories: recorded before they exist, removed after each fio run, swept from the records.

Each fio run gets a directory of its own under the temporary directory
(`$TMPDIR`): its job file, its output and its logs. iolab removes it when
the run ends, and fio's keeper removes it when iolab dies while fio runs.
Between the directory's creation and the keeper's start (job files written,
samplers started) neither can, so a SIGKILL there left it behind: 190 had
piled up on one host. They used to be swept by their name
(`iolab-point-<pid>-*` of a dead pid), and `iolab clean` removed a user's
`$TMPDIR/iolab-point-999999-mydata/` with its files: a name proves nothing.

So a work directory is a scratch entry like any other (`runner.scratch`):
recorded in the store under its run before it exists (kind "workdir"),
made with mkdir (which never follows or reuses a path), its device and
inode recorded once made. The sweep at a run's start and `iolab clean`
remove only recorded entries of runs no longer running, and only while the
path is still that very directory owned by this user; anything else is
left and named. The maker also holds a flock on it for as long as it lives:
a run of another PID namespace sharing the home keeps its directory.

A run killed between the mkdir and the record of its device and inode
leaves a recorded directory no identity vouches for (seen once in the suite
under load: `iolab clean` then named it on every call). Nothing has been put
in it by then, so the sweep removes it with rmdir, which removes only an empty
directory; one that holds anything is left and named.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from iolab import pathchain
from iolab.errors import UserError
from iolab.store.db import Store

WORKDIR = "workdir"  # the scratch kind of a work directory


@dataclass(frozen=True)
class Workdirs:
    """Where one run records the work directories of its fio runs."""

    store: Store
    run_id: int

    @contextmanager
    def made(self, kind: Literal["point", "phase"]) -> Iterator[Path]:
        """A fresh, recorded directory for one fio run, removed (and its record closed) when the block ends."""
        where, _ = pathchain.resolve(tempfile.gettempdir())  # a linked $TMPDIR resolved once, then walked as is
        path = Path(where) / f"iolab-{kind}-{os.getpid()}-{secrets.token_hex(6)}"
        scratch_id = self.store.record_scratch(self.run_id, str(path), WORKDIR)
        try:
            pathchain.make_dir(str(path), 0o700)  # in $TMPDIR held after its chain was checked: fio opens by name
        except UserError:
            self.store.scratch_removed(scratch_id)
            raise
        except OSError as exc:
            self.store.scratch_removed(scratch_id)
            raise UserError(f"cannot create fio's work directory {path}: {exc.strerror}; set TMPDIR") from None
        held = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        made = os.fstat(held)
        try:
            fcntl.flock(held, fcntl.LOCK_EX)  # released by the kernel however this process ends; held before
            self.store.scratch_created(scratch_id, made.st_dev, made.st_ino)  # the record is whole, see below
            yield path
        finally:
            os.close(held)
            if _same_directory(path, made):
                shutil.rmtree(path, ignore_errors=True)
            if not path.exists():
                self.store.scratch_removed(scratch_id)


def _same_directory(path: Path, made: os.stat_result) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and (info.st_dev, info.st_ino) == (made.st_dev, made.st_ino)


def locked(path: str) -> bool:
    """Whether a live iolab (of any PID namespace) holds the directory's lock; a directory that cannot be
    opened as one (replaced by a link or a file since it was recorded) counts as held: it is not touched."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
