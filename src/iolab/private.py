"""Every file iolab writes for its user, and its private directories: whole or not at all, never through a link.

The database, run reports and schedule files hold host snapshots, command
lines and target paths, so they are readable by their owner only (0600,
directories 0700) unless a reader is known to be another user (node_exporter
for the Prometheus textfile). Files are written to a fresh temporary name
in the same directory (created `O_EXCL|O_NOFOLLOW`) and renamed over the
destination: a reader never sees half a file, and a symlink planted at the
destination is replaced, never followed. `iolab report --png DIR` once wrote
its pictures through a link planted in DIR under a picture's name, into the
file the link named; since then every file iolab writes goes through
`write_private` (reports, pictures, exports, bundles, job files, schedule
units), and `tests/test_file_writes.py` fails on any other way of writing a
file in `src/` outside the modules it lists with their reason.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from iolab import guards, pathchain, programs

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700
AS_UMASK = -1  # a mode for files meant to be shared as any new file is (pictures, bundles): 0666 less the umask


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) with mode 0700 for what iolab creates; an existing one is kept as is.
    Every directory from `/` down must be one only root or the user can change (`pathchain`), else UserError."""
    path = Path(path)
    pathchain.make_dirs(str(path))
    return path


def write_private(path: Path, data: str | bytes, mode: int = PRIVATE_FILE) -> None:
    """Replace `path` with `data` atomically, mode `mode` (0600 unless a reader is another user; `AS_UMASK`
    for what was always written with the umask's mode). The temporary name is made O_CREAT|O_EXCL|O_NOFOLLOW
    and renamed over `path` (which replaces a link there instead of following it), both relative to the
    directory held after `pathchain` checked its chain: no other user can redirect either name."""
    programs.check_root_python()
    path = Path(path)
    if mode == AS_UMASK:
        mode = 0o666 & ~_umask()
    if not guards.active("link-refusing-writes"):
        with open(path, "wb") as handle:  # the mutation bench's stand-in for a write that follows links
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        return
    with pathchain.walk(str(path.parent), given=str(path)) as (held, _):
        temporary, fd = _temporary(held, path.name)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
                handle.flush()
                os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            os.replace(temporary, path.name, src_dir_fd=held, dst_dir_fd=held)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=held)
            raise


def _temporary(held: int, name: str) -> tuple[str, int]:
    """A fresh hidden name beside `name` in the held directory, opened for writing (as mkstemp names them)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        temporary = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            return temporary, os.open(temporary, flags, PRIVATE_FILE, dir_fd=held)
        except FileExistsError:
            continue


guards.register(
    "link-refusing-writes",
    "a file iolab writes followed through a link planted at its name",
    f"{__name__}.write_private",
)


def _umask() -> int:
    """The process's umask (reading it means setting it: put back at once; iolab's CLI is one thread)."""
    current = os.umask(0o077)
    os.umask(current)
    return current
