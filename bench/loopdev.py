"""Loop devices for the benchmarks.

`ram_loop_device`: direct I/O over a fully written tmpfs file, RAM behind
the loop driver; steady enough for A/B benchmarks (no host disk, no page
cache in between), yet a real block device with a queue, a scheduler and
/proc/diskstats. `disk_loop_device`: what a user makes first, a default
(buffered) loop device over a sparse file on a real disk.
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
    subprocess.run(
        ["dd", "if=/dev/zero", f"of={backing}", "bs=1M", f"count={size_mib}"], check=True, capture_output=True
    )
    with _attached(work, backing, ["--direct-io=on"]) as device:
        yield work, device


@contextmanager
def disk_loop_device(directory: Path, size_mib: int) -> Iterator[tuple[Path, str]]:
    """(a work directory under `directory`, a default loop device over a sparse file in it); gone afterwards."""
    if os.geteuid() != 0:
        raise SystemExit("needs root for a loop device")
    work = Path(tempfile.mkdtemp(prefix="iolab-bench-", dir=directory))
    backing = work / "disk.img"
    with backing.open("wb") as sparse:
        sparse.truncate(size_mib << 20)
    with _attached(work, backing, []) as device:
        yield work, device


@contextmanager
def _attached(work: Path, backing: Path, options: list[str]) -> Iterator[str]:
    """The loop device over `backing`; detached and `work` removed afterwards, whatever happened."""
    device = subprocess.run(
        ["losetup", "--find", "--show", *options, str(backing)], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], check=False)
        subprocess.run(["rm", "-rf", str(work)], check=False)


BLKIO = Path("/sys/fs/cgroup/blkio")


@contextmanager
def throttled(device: str, bytes_per_s: int, ios_per_s: int) -> Iterator[str]:
    """This process (and the fio it starts) in a fresh cgroup-v1 blkio group capping `device`'s reads and
    writes at `bytes_per_s` and `ios_per_s`: a device that reads the same every second. Yields a description;
    the process is moved back and the group removed afterwards."""
    if not (BLKIO / "blkio.throttle.read_bps_device").exists():
        raise SystemExit("needs cgroup v1 blkio throttling at /sys/fs/cgroup/blkio")
    rdev = os.stat(device).st_rdev
    key = f"{os.major(rdev)}:{os.minor(rdev)}"
    group = Path(tempfile.mkdtemp(prefix="iolab-bench-", dir=BLKIO))
    try:
        for direction in ("read", "write"):
            (group / f"blkio.throttle.{direction}_bps_device").write_text(f"{key} {bytes_per_s}\n")
            (group / f"blkio.throttle.{direction}_iops_device").write_text(f"{key} {ios_per_s}\n")
        (group / "cgroup.procs").write_text(str(os.getpid()))
        yield f"reads and writes capped at {bytes_per_s >> 20} MiB/s and {ios_per_s:,} IOPS (cgroup-v1 blkio)"
    finally:
        (BLKIO / "cgroup.procs").write_text(str(os.getpid()))
        os.rmdir(group)
