"""Block-device counters from /proc/diskstats, and the devices a target really uses.

The sampler keeps the raw text of /proc/diskstats at every tick; this module
turns two such readings into per-device rates after the run, so the sampling
thread never parses anything.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from iolab.errors import UserError
from iolab.probe.fs import mount_of
from iolab.probe.root import Root

SECTOR_BYTES = 512  # /proc/diskstats counts 512-byte sectors whatever the device's block size


@dataclass(frozen=True)
class DiskCounters:
    """Cumulative counters of one device at one instant (see Documentation/admin-guide/iostats.rst)."""

    reads: int
    sectors_read: int
    read_ms: int
    writes: int
    sectors_written: int
    write_ms: int
    in_flight: int
    io_ms: int
    weighted_io_ms: int


def parse_diskstats(text: str, devices: frozenset[str] | None = None) -> dict[str, DiskCounters]:
    """Counters per device name; only `devices` when given, so a 2000-disk host stays cheap."""
    out: dict[str, DiskCounters] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 14:
            continue
        name = fields[2]
        if devices is not None and name not in devices:
            continue
        v = [int(f) for f in fields[3:14]]
        out[name] = DiskCounters(
            reads=v[0],
            sectors_read=v[2],
            read_ms=v[3],
            writes=v[4],
            sectors_written=v[6],
            write_ms=v[7],
            in_flight=v[8],
            io_ms=v[9],
            weighted_io_ms=v[10],
        )
    return out


@dataclass(frozen=True)
class DiskRates:
    """What one device did between two readings, in the units iolab stores."""

    read_bytes_s: float
    write_bytes_s: float
    read_iops: float
    write_iops: float
    util_pct: float
    queue_depth: float  # mean requests in flight (iostat's aqu-sz), from weighted time
    in_flight: int  # requests in flight at the end of the interval


def disk_rates(before: DiskCounters, after: DiskCounters, seconds: float) -> DiskRates | None:
    """Rates over `seconds`; None when a counter went backwards (device re-created or reset)."""
    deltas = (
        after.reads - before.reads,
        after.sectors_read - before.sectors_read,
        after.writes - before.writes,
        after.sectors_written - before.sectors_written,
        after.io_ms - before.io_ms,
        after.weighted_io_ms - before.weighted_io_ms,
    )
    if seconds <= 0 or min(deltas) < 0:
        return None
    reads, sectors_read, writes, sectors_written, io_ms, weighted_ms = deltas
    return DiskRates(
        read_bytes_s=sectors_read * SECTOR_BYTES / seconds,
        write_bytes_s=sectors_written * SECTOR_BYTES / seconds,
        read_iops=reads / seconds,
        write_iops=writes / seconds,
        # io_ms is rounded to whole jiffies by the kernel, so a busy device can read 100.4%.
        util_pct=min(100.0, io_ms / (seconds * 10.0)),
        queue_depth=weighted_ms / (seconds * 1000.0),
        in_flight=after.in_flight,
    )


def member_devices(name: str, root: Root) -> list[str]:
    """The whole devices under a kernel block device name.

    A partition maps to its parent disk; dm and md devices map, recursively,
    to the devices listed in their `slaves/`. Telemetry must watch these,
    because a dm or md device's own counters hide which member is slow.
    """
    base = f"/sys/class/block/{name}"
    if not root.exists(base):
        raise UserError(f"no block device named {name!r} in /sys/class/block")
    slaves = root.listdir(f"{base}/slaves")
    if slaves:
        found: list[str] = []
        for slave in slaves:
            for member in member_devices(slave, root):
                if member not in found:
                    found.append(member)
        return found
    if root.exists(f"{base}/partition"):
        # /sys/class/block/sda1 -> .../block/sda/sda1: the parent directory is the disk.
        return member_devices(root.path(base).resolve().parent.name, root)
    return [name]


def device_name(major_minor: str, root: Root) -> str | None:
    """Kernel name of the block device numbered "MAJ:MIN", or None when there is none."""
    link = root.path(f"/sys/dev/block/{major_minor}")
    if not link.exists():
        return None
    return link.resolve().name


def devices_for_path(path: str, root: Root | None = None) -> list[str]:
    """Whole block devices whose counters show the I/O a workload on `path` does.

    `path` may be a block device node (including /dev/mapper, /dev/md and
    /dev/disk/by-* links), a partition, or a file or directory in a mounted
    file system. A file system with no block device behind it (tmpfs, NFS)
    gives an empty list: there is nothing on this host to watch.
    """
    root = root or Root("/")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file or device; give an existing device, file or directory") from None
    except PermissionError:
        raise UserError(f"{path}: permission denied; run as a user who can read it") from None
    dev = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
    name = device_name(f"{os.major(dev)}:{os.minor(dev)}", root)
    if name is None and not stat.S_ISBLK(st.st_mode):
        # btrfs, overlay and friends report an anonymous st_dev; the mount source names the device.
        mount = mount_of(path, root)
        if mount is not None and mount.source.startswith("/dev/") and os.path.exists(mount.source):
            src = os.stat(mount.source)
            if stat.S_ISBLK(src.st_mode):
                name = device_name(f"{os.major(src.st_rdev)}:{os.minor(src.st_rdev)}", root)
    if name is None:
        return []
    return member_devices(name, root)
