"""Blank means blank: a block device is written only when its content shows nothing to lose.

`blkid` finds a signature at a known place; data without one (a raw database, a file system whose first
MiB was zeroed, a loop device stacked at an offset inside it) is invisible to it, and was overwritten. So
before the first write iolab reads the device itself, with direct I/O (the page cache could hold stale
zeros): its first and last MiB and `SPREAD_BLOCKS` blocks spread evenly between, and refuses any byte that
is not zero, naming where it was found. A `blkdiscard`ed or zeroed device passes.

A device iolab wrote last passes too: at the end of a run that may have written it, the same blocks are
read again and their digest is kept under `$IOLAB_HOME` with what identifies the device (a loop device's
backing file and offset, a disk's WWID or serial, and the size), so the next run recognises its own
leftovers and nobody else's. Data anyone writes afterwards into a sampled block changes the digest.

While a run lasts, each device it may write is held open with O_EXCL: the kernel then refuses to mount
it, to assemble it into md or device-mapper, or to give it to another exclusive opener, so nothing can
come to sit on top of it between the check and the last write. A discard goes through that same handle.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import mmap
import os
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path

from iolab import guards
from iolab.errors import UserError
from iolab.private import private_dir, write_private

EDGE_BYTES = 1 << 20  # each end: partition tables, superblocks, GPT's backup header, md's end metadata
SPREAD_BLOCKS = 256
BLOCK = 4096
MARKS_FILE = "written-devices.json"
_BLKDISCARD = 0x1277  # _IO(0x12, 119)


def sample_ranges(size: int) -> list[tuple[int, int]]:
    """(offset, length) of what is read: both ends and evenly spread blocks, aligned for direct I/O."""
    if size <= 2 * EDGE_BYTES:
        return [(0, size - size % BLOCK)] if size >= BLOCK else []
    ranges = [(0, EDGE_BYTES), (size - EDGE_BYTES - (size % BLOCK), EDGE_BYTES)]
    span = size - 2 * EDGE_BYTES
    for i in range(SPREAD_BLOCKS):
        offset = EDGE_BYTES + span * i // SPREAD_BLOCKS
        ranges.append((offset - offset % BLOCK, BLOCK))
    return ranges


def read_samples(device: str, size: int) -> list[tuple[int, bytes]]:
    """The sampled ranges' bytes, read with O_DIRECT into a page-aligned buffer."""
    ranges = sample_ranges(size)
    fd = os.open(device, os.O_RDONLY | os.O_DIRECT)
    try:
        out = []
        for offset, length in ranges:
            with mmap.mmap(-1, length) as buffer:
                got = os.preadv(fd, [buffer], offset)
                out.append((offset, bytes(buffer[:got])))
        return out
    finally:
        os.close(fd)


def first_data(samples: Iterable[tuple[int, bytes]]) -> tuple[int, int] | None:
    """(byte offset of the first non-zero byte, how many sampled ranges hold any), or None when all are zero."""
    first, count = None, 0
    for offset, data in samples:
        if data.count(0) != len(data):
            count += 1
            if first is None:
                first = offset + len(data) - len(data.lstrip(b"\0"))
    return None if first is None else (first, count)


def digest(samples: Iterable[tuple[int, bytes]]) -> str:
    """One digest of every sampled range and where it was read."""
    h = hashlib.sha256()
    for offset, data in samples:
        h.update(struct.pack("<QQ", offset, len(data)))
        h.update(data)
    return h.hexdigest()


def _sys(name: str, *parts: str) -> str:
    try:
        return Path("/sys/class/block", name, *parts).read_text().strip()
    except OSError:
        return ""


def device_key(device: str, size: int) -> str:
    """What names this device across reboots and renumbering: a loop device by its backing file's inode and
    offset, a disk by its WWID or serial; always with its size. Device numbers alone are reused."""
    name = Path(os.path.realpath(device)).name
    backing = _sys(name, "loop", "backing_file").removesuffix(" (deleted)")
    if backing:
        try:
            info = os.stat(backing)
        except OSError:
            return f"loop {backing} gone"
        return f"loop {info.st_dev}:{info.st_ino}@{_sys(name, 'loop', 'offset')} size {size}"
    for attribute in (("wwid",), ("device", "wwid"), ("device", "serial")):
        value = _sys(name, *attribute)
        if value:
            return f"disk {value} size {size}"
    rdev = os.stat(device).st_rdev
    return f"block {os.major(rdev)}:{os.minor(rdev)} size {size}"


def _marks(home: Path) -> dict[str, str]:
    try:
        data = json.loads((home / MARKS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


@guards.guard("blank-content", "a write to a device holding any non-zero byte iolab did not write (sampled)")
def content_problem(device: str, home: Path) -> str | None:
    """Why the device's content says it holds data, or None when it is blank or holds iolab's last write."""
    size = _whole_size(device)
    try:
        samples = read_samples(device, size)
    except OSError as exc:
        return f"iolab cannot read it to check it is blank ({exc.strerror})"
    found = first_data(samples)
    if found is None:
        return None
    if _marks(home).get(device_key(device, size)) == digest(samples):
        return None
    offset, count = found
    return (
        f"it holds data (a non-zero byte at offset {offset:,}; {count} of {len(samples)} sampled ranges are "
        f"not zero) that iolab did not write; if it may go, blank it first with `blkdiscard {device}`"
    )


def remember_written(devices: Iterable[str], home: Path) -> None:
    """Keep the digest of each device's sampled blocks as iolab left them, so the next run knows them."""
    devices = list(devices)
    if not devices:
        return
    marks = _marks(home)
    for device in devices:
        size = _whole_size(device)
        with contextlib.suppress(OSError):
            marks[device_key(device, size)] = digest(read_samples(device, size))
    private_dir(home)
    write_private(home / MARKS_FILE, json.dumps(marks, indent=1, sort_keys=True))


def _whole_size(device: str) -> int:
    return int(_sys(Path(os.path.realpath(device)).name, "size") or 0) * 512


class HeldDevices:
    """The devices a run holds open with O_EXCL (`held`), by node: a discard goes through the same handle,
    since blkdiscard's own O_EXCL open would be refused while the run holds the device."""

    def __init__(self, fds: dict[str, int]) -> None:
        self._fds = fds

    def discard(self, device: str) -> None:
        """Discard the whole device; OSError when it does not support it, or when the run does not hold it
        (a device iolab may not write is never discarded)."""
        fd = self._fds.get(device)
        if fd is None:
            raise OSError(errno.EPERM, "not held by this run for writing")
        fcntl.ioctl(fd, _BLKDISCARD, struct.pack("QQ", 0, _whole_size(device)))


guards.register(
    "exclusive-hold", "a mount, mkfs, md or device-mapper claim on a device while a run writes it", f"{__name__}.held"
)


@contextlib.contextmanager
def held(devices: Iterable[str]) -> Iterator[HeldDevices]:
    """Each device held open with O_EXCL for the block; UserError when one is in use."""
    fds: dict[str, int] = {}
    try:
        for device in devices:
            try:
                fds[device] = os.open(device, os.O_RDWR | (os.O_EXCL if guards.active("exclusive-hold") else 0))
            except OSError as exc:
                raise UserError(
                    f"refusing to write to {device}: the kernel reports it in use ({exc.strerror}); "
                    "unmount it or stop what holds it"
                ) from None
        yield HeldDevices(fds)
    finally:
        for fd in fds.values():
            os.close(fd)
