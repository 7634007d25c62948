"""Never destroy data: the checks before any write to a block device.

Writes need `--allow-write`, and even then a device is refused when it is
mounted (itself or a partition), used as swap, partitioned, held by
another device (device-mapper, LVM, md RAID), the backing of a loop device
at any offset, busy for an exclusive open, carries any signature blkid
recognises (file system, partition table, RAID or LVM member), or holds any
non-zero byte iolab did not write itself (`iolab.runner.blank`). Reads are
always allowed.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from iolab.errors import UserError
from iolab.probe.fs import read_mounts
from iolab.probe.root import Root
from iolab.runner import blank
from iolab.store.db import home_dir


def kernel_name(device: str) -> str:
    """The kernel's name of a block device node (/dev/disk/by-id/... → nvme0n1)."""
    return Path(os.path.realpath(device)).name


def _major_minor(device: str) -> str:
    rdev = os.stat(device).st_rdev
    return f"{os.major(rdev)}:{os.minor(rdev)}"


def partitions_of(name: str, root: Root) -> list[str]:
    """Partitions the kernel knows for a whole device (loop0p1, nvme0n1p2, sda1)."""
    return [
        e for e in root.listdir(f"/sys/class/block/{name}") if root.exists(f"/sys/class/block/{name}/{e}/partition")
    ]


def _signature(device: str) -> str | None:
    """What blkid finds on the device (low-level probe, no cache), or None when it is blank."""
    blkid = shutil.which("blkid") or next((p for p in ("/sbin/blkid", "/usr/sbin/blkid") if os.path.exists(p)), None)
    if blkid is None:
        return (
            "an unknown signature (blkid from util-linux is not installed, so iolab cannot check the device is blank)"
        )
    proc = subprocess.run(
        [blkid, "-p", "-o", "export", device], capture_output=True, text=True, timeout=30, check=False
    )
    if proc.returncode == 2:  # nothing found
        return None
    if proc.returncode != 0:
        return f"an unreadable signature area (blkid failed: {proc.stderr.strip() or proc.returncode})"
    fields = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    if "PTTYPE" in fields:
        return f"a {fields['PTTYPE']} partition table"
    if "TYPE" in fields:
        return f"a {fields['TYPE']} signature"
    return None if not fields else "a signature (" + ", ".join(sorted(fields)) + ")"


def write_refusals(device: str, root: Root | None = None) -> list[str]:
    """Every reason iolab will not write to this block device; empty when it is safe."""
    root = root or Root()
    name = kernel_name(device)
    reasons: list[str] = []
    devnums = {_major_minor(device)}
    parts = partitions_of(name, root)
    for part in parts:
        dev = (root.read_text(f"/sys/class/block/{part}/dev") or "").strip()
        if dev:
            devnums.add(dev)
    for mount in read_mounts(root):
        if mount.major_minor in devnums:
            reasons.append(f"it is mounted at {mount.mount_point}")
    swaps = root.read_text("/proc/swaps") or ""
    if any(kernel_name(line.split()[0]) in {name, *parts} for line in swaps.splitlines()[1:] if line.strip()):
        reasons.append("it is in use as swap")
    if parts:
        reasons.append("it has partitions (" + ", ".join(parts) + ")")
    holders = root.listdir(f"/sys/class/block/{name}/holders")
    if holders:
        reasons.append("it is held by " + ", ".join(holders) + " (device-mapper, LVM or RAID)")
    try:
        fd = os.open(device, os.O_RDONLY | os.O_EXCL)
        os.close(fd)
    except OSError as exc:
        if not reasons:
            reasons.append(f"the kernel reports it in use ({exc.strerror})")
    reasons += [f"{loop} is backed by it (at offset {offset})" for loop, offset in loops_on(device, root)]
    signature = _signature(device)
    if signature:
        reasons.append(f"it holds {signature}")
    content = blank.content_problem(device, home_dir())
    if content and not signature:
        reasons.append(content)
    return reasons


def loops_on(device: str, root: Root) -> list[tuple[str, str]]:
    """(loop device, offset) of every loop device whose backing file is this device, at any offset: a file
    system on it is invisible to this device's own holders, mounts and signature."""
    rdev = os.stat(device).st_rdev
    found = []
    for name in root.listdir("/sys/block"):
        backing = (root.read_text(f"/sys/block/{name}/loop/backing_file") or "").strip().removesuffix(" (deleted)")
        if not backing:
            continue
        try:
            info = os.stat(backing)
        except OSError:
            continue
        if stat.S_ISBLK(info.st_mode) and info.st_rdev == rdev:
            found.append((name, (root.read_text(f"/sys/block/{name}/loop/offset") or "0").strip()))
    return found


def check_writable(device: str) -> None:
    """Raise UserError unless writing to `device` is safe (the user already allowed writes)."""
    reasons = write_refusals(device)
    if reasons:
        raise UserError(
            f"refusing to write to {device}: " + "; ".join(reasons) + ". Its data would be destroyed; "
            "use a blank device, or a directory on it for a file-based test"
        )
