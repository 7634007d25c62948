"""Files and directories iolab writes for its user: private unless asked otherwise, whole or not at all.

The database, run reports and schedule files hold host snapshots, command
lines and target paths, so they are readable by their owner only (0600,
directories 0700) unless a reader is known to be another user (node_exporter
for the Prometheus textfile). Files are written to a fresh temporary name
in the same directory and renamed over the destination: a reader never sees
half a file, and a symlink planted at the destination is replaced, never
followed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) with mode 0700 for what iolab creates; an existing one is kept as is."""
    path = Path(path)
    if not path.is_dir():
        path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
        path.chmod(PRIVATE_DIR)  # mkdir's mode is masked by the umask, and parents get the default
    return path


def write_private(path: Path, data: str | bytes, mode: int = PRIVATE_FILE) -> None:
    """Replace `path` with `data` atomically, mode `mode` (0600 unless a reader is another user)."""
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
