"""Blank means blank: a block device is written only when its content shows nothing to lose.

`blkid` finds a signature at a known place; data without one (a raw database, a file system whose first
MiB was zeroed, a loop device stacked at an offset inside it) is invisible to it, and was overwritten. A
sample is no better: 64 KiB of data between two sampled blocks was overwritten too. So before the first
write iolab reads the whole device itself, with direct I/O (the page cache could hold stale zeros), in
large sequential reads, and refuses any byte that is not zero, naming where it was found. A `blkdiscard`ed
or zeroed device passes. Sampling is the user's explicit choice (`--verify-blank sample`: both ends and
one block per MiB), and the run then says "sampled, not checked in full" (`docs/safety-devices.md`).

A device iolab wrote last passes without the full read: at the end of a run that may have written it,
its first and last MiB and `SPREAD_BLOCKS` blocks spread between (the fingerprint) are read again and their
digest is kept under `$IOLAB_HOME` with what identifies the device (a loop device's backing file and
offset, a disk's WWID or serial, and the size), so the next run recognises its own leftovers and nobody
else's. Data anyone writes afterwards into a fingerprinted block changes the digest; a fingerprint of
zeros proves nothing and is never taken as iolab's.

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
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from iolab import guards
from iolab.errors import UserError
from iolab.models import units
from iolab.private import private_dir, write_private
from iolab.runner.device_watch import DeviceWatch

EDGE_BYTES = 1 << 20  # each end: partition tables, superblocks, GPT's backup header, md's end metadata
SPREAD_BLOCKS = 256
BLOCK = 4096
MARKS_FILE = "written-devices.json"
CHUNK = 16 << 20  # one read of the full check: large and sequential, as fast as the device streams
PROGRESS_S = 5.0  # how often a long full read says how far it is
VERIFY_MODES = ("full", "sample")


@dataclass
class BlankChecks:
    """One run's content checks: how the user asked (`mode`), and what each accepted device passed by."""

    mode: str = "full"
    accepted: dict[str, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The acceptance lines the run prints among its notes."""
        return [f"{device}: {how}" for device, how in self.accepted.items()]


def verify_mode(mode: str) -> str:
    """`mode` when it is one of VERIFY_MODES; UserError otherwise."""
    if mode not in VERIFY_MODES:
        raise UserError(f"--verify-blank {mode!r}: use full (read every byte, the default) or sample")
    return mode


_CHECKS: ContextVar[BlankChecks | None] = ContextVar("blank_checks", default=None)


@contextlib.contextmanager
def verifying(mode: str) -> Iterator[BlankChecks]:
    """The content checks of the block (one run, or one dry run) made as `mode` says; UserError for a mode
    that is not one of VERIFY_MODES."""
    checks = BlankChecks(verify_mode(mode))
    token = _CHECKS.set(checks)
    try:
        yield checks
    finally:
        _CHECKS.reset(token)


def acceptance_lines() -> list[str]:
    """How each device the current run (or dry run) may write was accepted: read in full, sampled, or
    recognised as iolab's own last write."""
    checks = _CHECKS.get()
    return checks.lines() if checks is not None else []


def _accept(checks: BlankChecks | None, device: str, how: str) -> None:
    if checks is not None:
        checks.accepted[device] = how


_BLKDISCARD = 0x1277  # _IO(0x12, 119)


def sample_ranges(size: int) -> list[tuple[int, int]]:
    """(offset, length) of the fingerprint's blocks: both ends and `SPREAD_BLOCKS` evenly spread blocks,
    aligned for direct I/O, no block read twice. Cheap on any device; it proves data is there, never that
    none is.

    Between the ends lie `between` whole blocks; with no more than `SPREAD_BLOCKS` of them each is read once
    (spreading 256 offsets over fewer blocks would align several onto one block, or onto the last end).
    """
    if size <= 2 * EDGE_BYTES:
        return [(0, size - size % BLOCK)] if size >= BLOCK else []
    last = size - EDGE_BYTES - (size % BLOCK)
    ranges = [(0, EDGE_BYTES), (last, EDGE_BYTES)]
    between = (last - EDGE_BYTES) // BLOCK
    if between <= SPREAD_BLOCKS:
        return ranges + [(EDGE_BYTES + i * BLOCK, BLOCK) for i in range(between)]
    span = size - 2 * EDGE_BYTES  # at least SPREAD_BLOCKS + 1 blocks: consecutive offsets a block apart or more
    for i in range(SPREAD_BLOCKS):
        offset = EDGE_BYTES + span * i // SPREAD_BLOCKS
        ranges.append((offset - offset % BLOCK, BLOCK))
    return ranges


def dense_ranges(size: int) -> list[tuple[int, int]]:
    """`--verify-blank sample`: both ends and the first 4 KiB block of every MiB between. Data that starts
    past a MiB's first block and ends before the next MiB is not seen: only a full read sees everything."""
    if size <= 2 * EDGE_BYTES:
        return sample_ranges(size)
    last = size - EDGE_BYTES - (size % BLOCK)
    return [(0, EDGE_BYTES), *((o, BLOCK) for o in range(EDGE_BYTES, last, 1 << 20)), (last, EDGE_BYTES)]


Device = str | int  # a node's name, opened for one read; or a descriptor opened with O_DIRECT, read as it is


@contextlib.contextmanager
def _descriptor(device: Device) -> Iterator[int]:
    """`device` when it is a descriptor already (the check's own: every read of one check goes through the
    one open, so a name switched to another device in between cannot make it read two), else the node opened
    with O_DIRECT for the block."""
    if isinstance(device, int):
        yield device
        return
    fd = os.open(device, os.O_RDONLY | os.O_DIRECT)
    try:
        yield fd
    finally:
        os.close(fd)


def read_samples(device: Device, ranges: list[tuple[int, int]]) -> list[tuple[int, bytes]]:
    """The ranges' bytes, read with O_DIRECT into a page-aligned buffer (the page cache could hold stale zeros)."""
    with _descriptor(device) as fd:
        out = []
        with mmap.mmap(-1, max((length for _, length in ranges), default=BLOCK)) as buffer:
            for offset, length in ranges:
                with memoryview(buffer) as view:
                    got = os.preadv(fd, [view[:length]], offset)
                out.append((offset, bytes(buffer[:got])))
        return out


@dataclass(frozen=True)
class WholeRead:
    """What reading a whole device found: the first non-zero byte's offset (None: all zero), and how fast."""

    first: int | None
    seconds: float
    rate_mb_s: float


def read_all(device: Device, size: int, tell: Callable[[str], None] | None = None, name: str = "") -> WholeRead:
    """Every byte of the device, read in CHUNK-sized O_DIRECT reads until the first non-zero byte. Says
    (through `tell`, else on a terminal's stderr) how long it will take after its first second, and how far
    it is every few seconds; `name` is the device's in those words (a descriptor has none of its own)."""
    tell = tell or _tell_terminal
    started = time.monotonic()
    say_at = started + 1.0  # the first estimate after a second of reading, then every PROGRESS_S
    tell(f"checking {name or device} is blank: reading all {units.size(size)} of it")
    with _descriptor(device) as fd:
        return _first_data_of_all(fd, size, tell, started, say_at)


def _first_data_of_all(fd: int, size: int, tell: Callable[[str], None], started: float, say_at: float) -> WholeRead:
    """`read_all`'s reads on an open descriptor."""
    import numpy as np  # here, not at the top: `run --dry-run` imports this module and reads no device

    buffer = mmap.mmap(-1, CHUNK)  # page-aligned, as O_DIRECT wants
    words = np.frombuffer(buffer, dtype=np.uint8)
    offset, first = 0, None
    try:
        while offset < size and first is None:
            got = os.preadv(fd, [buffer], offset)
            if got <= 0:
                break
            if words[:got].any():
                first = offset + int(np.flatnonzero(words[:got])[0])
            offset += got
            now = time.monotonic()
            if now >= say_at and offset < size:
                rate = offset / (now - started)
                tell(f"  {offset / size:.0%} read, {rate / 1e6:,.0f} MB/s, about {(size - offset) / rate:.0f} s left")
                say_at = now + PROGRESS_S
    finally:
        del words  # the buffer closes only once no view of it is left
        buffer.close()
    seconds = max(time.monotonic() - started, 1e-9)
    return WholeRead(first, seconds, offset / 1e6 / seconds)


def _tell_terminal(message: str) -> None:
    if sys.stderr.isatty():
        print(message, file=sys.stderr, flush=True)


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
    if not name:  # no block device behind the descriptor (a plain file): /sys has nothing of it
        return ""
    try:
        return Path("/sys/class/block", name, *parts).read_text().strip()
    except OSError:
        return ""


def device_key(fd: int, size: int) -> str:
    """What names the device open as `fd` across reboots and renumbering: a loop device by its backing file's
    inode and offset, a disk by its WWID or serial; always with its size. Device numbers alone are reused.
    From the descriptor, not a name: the key is that of the device the check read."""
    rdev = os.fstat(fd).st_rdev
    name = Path(os.path.realpath(f"/sys/dev/block/{os.major(rdev)}:{os.minor(rdev)}")).name if rdev else ""
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
    return f"block {os.major(rdev)}:{os.minor(rdev)} size {size}"


def _marks(home: Path) -> dict[str, str]:
    try:
        data = json.loads((home / MARKS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


@guards.guard(
    "blank-content",
    "a write to a device holding any non-zero byte iolab did not write (read in full, or sampled when asked)",
)
def content_problem(device: str, home: Path, node: str | None = None) -> str | None:
    """Why the device's content says it holds data, or None when it is blank or holds iolab's last write.

    The fingerprint's blocks first (cheap): data there is refused at once, unless their digest is the one
    iolab kept after its own last write to this device (`remember_written`). Otherwise every byte is read
    (`read_all`), or, when the user chose `--verify-blank sample`, both ends and one block per MiB
    (`dense_ranges`); what was done is kept for the run's acceptance line (`verifying`).

    The device is opened once, and its size, key and every byte read come from that one descriptor: opened
    by name for each, a name switched to another device between two opens made the check read two devices.
    `node` is what to open when the caller pinned the device (`safety.write_refusals`); `device` names it.
    """
    try:
        fd = os.open(node or device, os.O_RDONLY | os.O_DIRECT)
    except OSError as exc:
        return f"iolab cannot read it to check it is blank ({exc.strerror})"
    try:
        return _content_problem(fd, device, home, _CHECKS.get())
    except OSError as exc:
        return f"iolab cannot read it to check it is blank ({exc.strerror})"
    finally:
        os.close(fd)


def _content_problem(fd: int, device: str, home: Path, checks: BlankChecks | None) -> str | None:
    """`content_problem` on the device open as `fd` (`device`: its name, in the words). Its size is the
    node's own (seek to the end): a name /sys does not know read as 0 bytes there, and 0 bytes read nothing
    and passed as blank."""
    size = os.lseek(fd, 0, os.SEEK_END)
    if size <= 0:
        return "its size reads as 0 bytes, so iolab cannot read it to check it is blank"
    samples = read_samples(fd, sample_ranges(size))
    found = first_data(samples)
    if found is not None:
        if _marks(home).get(device_key(fd, size)) != digest(samples):
            offset, count = found
            return _holds_data(
                device, f"a non-zero byte at offset {offset:,}; {count} of {len(samples)} sampled ranges are not zero"
            )
        _accept(checks, device, "iolab wrote it last (its fingerprint is iolab's own), not read again")
        return None
    if checks is not None and checks.mode == "sample":
        return _sampled(checks, fd, device, size)
    whole = read_all(fd, size, name=device)
    if whole.first is not None:
        return _holds_data(device, f"a non-zero byte at offset {whole.first:,}, found reading all of it")
    _accept(
        checks,
        device,
        f"blank: read in full, {units.size(size)} in {whole.seconds:.2f} s ({whole.rate_mb_s:,.0f} MB/s)",
    )
    return None


def _sampled(checks: BlankChecks, fd: int, device: str, size: int) -> str | None:
    """The user's choice: both ends and one block per MiB, said as such."""
    dense = read_samples(fd, dense_ranges(size))
    found = first_data(dense)
    if found is not None:
        offset, count = found
        return _holds_data(
            device, f"a non-zero byte at offset {offset:,}; {count} of {len(dense):,} sampled ranges are not zero"
        )
    _accept(
        checks,
        device,
        f"sampled, not checked in full: both ends and one 4 KiB block per MiB ({len(dense):,} ranges) read as zero",
    )
    return None


def _holds_data(device: str, where: str) -> str:
    return f"it holds data ({where}) that iolab did not write; if it may go, blank it first with `blkdiscard {device}`"


def remember_written(devices: Iterable[str], home: Path) -> None:
    """Keep the digest of each device's sampled blocks as iolab left them, so the next run knows them."""
    devices = list(devices)
    if not devices:
        return
    marks = _marks(home)
    for device in devices:
        with contextlib.suppress(OSError), _descriptor(device) as fd:  # one open: the key is the read device's
            size = os.lseek(fd, 0, os.SEEK_END)
            marks[device_key(fd, size)] = digest(read_samples(fd, sample_ranges(size)))
    private_dir(home)
    write_private(home / MARKS_FILE, json.dumps(marks, indent=1, sort_keys=True))


class HeldDevices:
    """The devices a run holds open with O_EXCL (`held`), by node: a discard goes through the same handle,
    since blkdiscard's own O_EXCL open would be refused while the run holds the device."""

    def __init__(self, fds: dict[str, int]) -> None:
        self._fds = fds
        self.watch = DeviceWatch(fds)  # what sits on them now; nothing may come to sit on them until the end

    def discard(self, device: str) -> None:
        """Discard the whole device; OSError when it does not support it, or when the run does not hold it
        (a device iolab may not write is never discarded)."""
        fd = self._fds.get(device)
        if fd is None:
            raise OSError(errno.EPERM, "not held by this run for writing")
        fcntl.ioctl(fd, _BLKDISCARD, struct.pack("QQ", 0, os.lseek(fd, 0, os.SEEK_END)))


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
