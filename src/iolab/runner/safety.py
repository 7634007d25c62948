"""Never destroy data: the checks before any write to a block device.

Writes need `--allow-write`, and even then a device is refused when anything
sits on it (`iolab.probe.device_stack.above`: a partition, a holder such as
device-mapper, LVM or md RAID, a loop device at any offset, a mount or swap
of any of them), busy for an exclusive open, carries any signature blkid
recognises (file system, partition table, RAID or LVM member), or holds any
non-zero byte iolab did not write itself (`iolab.runner.blank`). Reads are
always allowed.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from iolab.errors import UserError
from iolab.probe import device_stack
from iolab.probe.device_stack import kernel_name
from iolab.probe.root import Root
from iolab.runner import blank
from iolab.store.db import home_dir


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
    reasons = [item.describe(name) for item in device_stack.above(name, root)]
    try:
        fd = os.open(device, os.O_RDONLY | os.O_EXCL)
        os.close(fd)
    except OSError as exc:
        if not reasons:
            reasons.append(f"the kernel reports it in use ({exc.strerror})")
    signature = _signature(device)
    if signature:
        reasons.append(f"it holds {signature}")
    content = blank.content_problem(device, home_dir())
    if content and not signature:
        reasons.append(content)
    return reasons


def check_writable(device: str) -> None:
    """Raise UserError unless writing to `device` is safe (the user already allowed writes)."""
    reasons = write_refusals(device)
    if reasons:
        raise UserError(
            f"refusing to write to {device}: " + "; ".join(reasons) + ". Its data would be destroyed; "
            "use a blank device, or a directory on it for a file-based test"
        )
