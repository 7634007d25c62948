"""A loop device with direct I/O over a fully written tmpfs file: RAM behind the loop driver.

Steady enough for A/B benchmarks (no host disk, no page cache in between),
yet a real block device with a queue, a scheduler and /proc/diskstats.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def ram_loop_device(prefix: str, size_mib: int = 512) -> Iterator[tuple[Path, str]]:
    """(a work directory on tmpfs, the loop device's path); both gone afterwards. Needs root."""
    if os.geteuid() != 0:
        raise SystemExit("needs root for a loop device")
    work = Path(tempfile.mkdtemp(prefix=prefix, dir="/dev/shm"))
    backing = work / "disk.img"
    subprocess.run(["dd", "if=/dev/zero", f"of={backing}", "bs=1M", f"count={size_mib}"], check=True,
                   capture_output=True)
    device = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", str(backing)],
                            capture_output=True, text=True, check=True).stdout.strip()
    try:
        yield work, device
    finally:
        subprocess.run(["losetup", "-d", device], check=False)
        subprocess.run(["rm", "-rf", str(work)], check=False)
