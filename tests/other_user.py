"""Acting as another local user in a test: uid 65534 (nobody), by a forked child that drops to it."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

OTHER = 65534


def as_other_user(act: Callable[[], None]) -> None:
    """`act` run by uid 65534 (a forked child that drops to it, no groups); its failure fails the caller."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(OTHER)
            os.setuid(OTHER)
            act()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "uid 65534's move failed"


@contextmanager
def public_dir(prefix: str) -> Iterator[Path]:
    """Root's 0755 directory in /tmp holding `theirs`, a directory of uid 65534's: tmp_path's parents are 0700,
    so the other user could not reach anything under them; removed afterwards."""
    top = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    top.chmod(0o755)
    (top / "theirs").mkdir()
    os.chown(top / "theirs", OTHER, OTHER)
    try:
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)


@contextmanager
def shared_dir(prefix: str) -> Iterator[Path]:
    """Root's 0755 directory `shared` in /tmp (`public_dir`'s): one a root run may write in, that the other user
    can reach but not change; removed afterwards."""
    with public_dir(prefix) as top:
        shared = top / "shared"
        shared.mkdir()
        shared.chmod(0o755)
        yield shared


def root_only(uid: int) -> bool:
    """The `trusted` a root run passes to the path rule's readers: root alone."""
    return uid == 0


@contextmanager
def tmpfs_directory() -> Iterator[int]:
    """An O_PATH descriptor of /dev/shm (tmpfs on every Linux this runs on; not tmp_path, whose file system is
    the host's to choose), closed afterwards; the test is skipped where there is none."""
    import pytest

    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm here")
    fd = os.open("/dev/shm", os.O_PATH | os.O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)
