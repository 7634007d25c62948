"""fio's bytes against the bytes the target's own devices moved over the same point (/proc/diskstats).

A device cannot deliver data it never read: when fio counts far more bytes read than the target's devices
read while it ran, the rest came from a cache (the page cache of a buffered read, a file read twice), and
the rate is memory's, not the device's. Writes the devices did not see while fio ran were left in a cache
(buffered writes without fsync). Numbers only; RES-FROM-CACHE in the doctor judges them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from iolab.analysis.series import series_by_source
from iolab.models import Result, Sample

DISK_BW = "disk.bw"  # bytes/s per interval, `t_ms` at its end (`iolab.telemetry.sampler.DISK_BW`)


@dataclass(frozen=True)
class DeviceTraffic:
    """One point's bytes by direction: what fio counted and what its target's devices moved meanwhile."""

    point: str
    fio_bytes: dict[str, int]  # "read"/"write" -> bytes fio moved
    device_bytes: dict[str, float]  # "read"/"write" -> bytes the devices moved while the point ran
    devices: tuple[str, ...]


def device_bytes(samples: Iterable[Sample], ddir: str, devices: tuple[str, ...] = ()) -> dict[str, float]:
    """Device -> bytes moved in one direction: each interval's rate times its length, from the first reading.

    The sampler's intervals are contiguous from its first reading (t = 0) to its stop, so the sum is every
    byte the device's counters advanced by.
    """
    out = {}
    for device, (times, values) in series_by_source(samples, DISK_BW, ddir).items():
        if devices and device not in devices:
            continue
        previous, total = 0.0, 0.0
        for t, value in zip(times, values, strict=True):
            total += value * (t - previous)
            previous = t
        out[device] = total
    return out


def measure_traffic(
    point: str, result: Result, samples: list[Sample], devices: tuple[str, ...] = ()
) -> DeviceTraffic | None:
    """The traffic of one point, or None when its telemetry watched no device."""
    fio = {ddir: d.io_bytes for ddir, d in result.directions.items() if ddir in ("read", "write")}
    moved: dict[str, float] = {}
    seen: set[str] = set()
    for ddir in ("read", "write"):
        per_device = device_bytes(samples, ddir, devices)
        seen |= set(per_device)
        moved[ddir] = sum(per_device.values())
    if not seen:
        return None
    return DeviceTraffic(point, fio, moved, tuple(sorted(seen)))
