"""fio's temporary work directories: made per fio run, removed after it, swept after a kill.

Each fio run gets a directory of its own under the temporary directory
(`$TMPDIR`): its job file, its output and its logs. iolab removes it when
the run ends, and fio's keeper removes it when iolab dies while fio runs.
Between the directory's creation and the keeper's start (job files written,
samplers started) neither can, so a SIGKILL there left it behind: 190 had
piled up on one host. The directory's name carries the pid of the iolab that
made it (`iolab-point-<pid>-<random>`); the next run and `iolab clean`
remove those whose maker is gone. A directory is removed only when it is
a real directory (not a link), owned by this user, named so, its maker's
pid is not alive (a live pid, even reused by another program, keeps it),
and nobody holds the lock its maker takes on it for as long as it lives: a
`/tmp` shared between containers shows another PID namespace's live iolab
under a pid that is dead here, and its lock keeps its directory.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

_NAME = re.compile(r"^iolab-(?:point|phase)-(\d+)-[A-Za-z0-9_]+$")


@contextmanager
def workdir(kind: Literal["point", "phase"]) -> Iterator[Path]:
    """A fresh directory for one fio run, named with this process's pid, removed when the block ends."""
    with tempfile.TemporaryDirectory(prefix=f"iolab-{kind}-{os.getpid()}-") as path:
        held = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(held, fcntl.LOCK_EX)  # released by the kernel however this process ends
            yield Path(path)
        finally:
            os.close(held)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def orphaned(parent: Path | None = None) -> list[Path]:
    """Work directories under `parent` (the temporary directory) whose iolab is no longer running."""
    parent = Path(parent or tempfile.gettempdir())
    found: list[Path] = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return found
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or int(match.group(1)) == os.getpid() or _alive(int(match.group(1))):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not _locked(entry.path):
            found.append(Path(entry.path))
    return sorted(found)


def _locked(path: str) -> bool:
    """Whether a live iolab (of any PID namespace) holds the directory's lock; a directory that cannot be
    opened as one (replaced by a link or a file since it was listed) counts as held: it is not touched."""
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


def remove_orphaned(dry_run: bool = False) -> list[str]:
    """Remove (or, dry, only list) the work directories killed runs left; returns their paths."""
    removed = []
    for path in orphaned():
        if not dry_run:
            shutil.rmtree(path, ignore_errors=True)
            if path.exists():
                continue
        removed.append(str(path))
    return removed
