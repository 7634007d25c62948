"""Block-device counters from /proc/diskstats, and the devices a target really uses.

The sampler keeps the raw text of /proc/diskstats at every tick; this module
turns two such readings into per-device rates after the run, so the sampling
thread never parses anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from iolab.probe.device_stack import beneath_path
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


def devices_for_path(path: str) -> list[str]:
    """Whole block devices whose counters show the I/O a workload on `path` does: the bottom of its device
    stack (`iolab.probe.device_stack.beneath_path`: partitions, device-mapper and md members, loop devices'
    backing files). A dm or md device's own counters hide which member is slow, and a loop device's count
    reads its backing file's page cache served; an empty list when no block device lies beneath."""
    return beneath_path(path, Root("/"))
