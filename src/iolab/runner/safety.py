"""Never destroy data: the one write guard, and the checks before any write to a block device.

`write_refusal` is the write guard every layer asks (docs/safety.md says where each asks it): planning
skips or refuses a point by it, every executor's job files pass it, the unmeasured phases (a scratch fill,
a precondition, a discard) pass it, and the devices a run holds are those it lets write. A target may be
written only when `writable_target` made it writable: a scratch file or directory iolab creates, or, with
`--allow-write`, a blank device on this host that nothing sits on (`write_refusals`).

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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from iolab import guards, pathchain, programs
from iolab.errors import UserError
from iolab.fio.options import extent_problem
from iolab.models import Target
from iolab.models.job_options import JobOptions
from iolab.probe import device_stack
from iolab.probe.device_stack import kernel_name
from iolab.probe.root import Root
from iolab.runner import blank
from iolab.store.db import home_dir

# What sits on a device, by the guard that refuses it (`device_stack.Above.kind`): partitions and holders
# are refused whatever the registry says; a mount or swap, and a loop device at any offset, by these.
ABOVE_GUARDS = {"mount": "mount-check", "swap": "mount-check", "loop": "loops-on"}
guards.register(
    "mount-check",
    "a write to a device mounted (or used as swap) itself or through a partition",
    __name__ + ".write_refusals",
)
guards.register(
    "loops-on", "a write to a device a loop device is backed by, at any offset", __name__ + ".write_refusals"
)


@guards.guard(
    "blkid-signature", "a write to a device carrying a signature blkid knows (file system, partition table, RAID, LVM)"
)
def _signature(device: str) -> str | None:
    """What blkid finds on the device (low-level probe, no cache), or None when it is blank. `device` is the
    pinned node (`write_refusals`): blkid opens the very device the other checks judge."""
    blkid = programs.find("blkid") or next(
        (programs.find(p) for p in ("/sbin/blkid", "/usr/sbin/blkid") if os.path.exists(p)), None
    )
    if blkid is None:
        return (
            "an unknown signature (blkid from util-linux is not installed, so iolab cannot check the device is blank)"
        )
    proc = programs.run([blkid, "-p", "-o", "export", device], capture_output=True, text=True, timeout=30, check=False)
    if proc.returncode == 2:  # nothing found
        return None
    if proc.returncode != 0:
        return f"an unreadable signature area (blkid failed: {proc.stderr.strip() or proc.returncode})"
    return _described(dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line))


def _described(fields: dict[str, str]) -> str | None:
    """blkid's export fields in words: a partition table, a signature's type, or the fields it named."""
    if "PTTYPE" in fields:
        return f"a {fields['PTTYPE']} partition table"
    if "TYPE" in fields:
        return f"a {fields['TYPE']} signature"
    return None if not fields else "a signature (" + ", ".join(sorted(fields)) + ")"


def write_refusals(device: str, root: Root | None = None) -> list[str]:
    """Every reason iolab will not write to this block device; empty when it is safe.

    The node is opened once (`O_PATH`: no I/O, no claim) and every check reaches the device through that
    descriptor (`/proc/PID/fd/N`, which reopens the same inode whatever the name points to by then): the
    stack, the busy probe, blkid and the content check judge one device. By name, each would open the name
    again, and a name switched between two checks made them judge different devices."""
    root = root or Root()
    try:
        pin = os.open(device, os.O_PATH | os.O_CLOEXEC)
    except OSError as exc:
        return [f"iolab cannot open it ({exc.strerror})"]
    try:
        return _refusals(device, f"/proc/{os.getpid()}/fd/{pin}", root)
    finally:
        os.close(pin)


def _refusals(device: str, node: str, root: Root) -> list[str]:
    """`write_refusals` for the device pinned as `node`; `device` is its name in the words."""
    name = kernel_name(node, root)
    reasons = [
        item.describe(name)
        for item in device_stack.above(name, root)
        if item.kind not in ABOVE_GUARDS or guards.active(ABOVE_GUARDS[item.kind])
    ]
    try:
        fd = os.open(node, os.O_RDONLY | os.O_EXCL)
        os.close(fd)
    except OSError as exc:
        if not reasons:
            reasons.append(f"the kernel reports it in use ({exc.strerror})")
    signature = _signature(node)
    if signature:
        reasons.append(f"it holds {signature}")
    content = blank.content_problem(device, home_dir(), node)
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


guards.register(
    "existing-file-refusal",
    "--allow-write on an existing file: iolab writes only files it creates",
    "iolab.runner.safety.writable_target",
)
REMOTE_DEVICE = (
    "it is a device on another host, and iolab checks that a device is blank on this host only: a remote "
    "device stays read-only until the write guard can run on that host; drop --allow-write to read it"
)


@dataclass(frozen=True)
class Refusal:
    """Why a job may not run on a target. `read_only`: only because it writes and the target is read-only,
    which a plan skips with a note (its reads still run); anything else stops the run."""

    reason: str
    read_only: bool = False


@guards.guard("read-only-target", "a job that writes, trims or deletes on a target not made writable")
def _read_only_refusal(target: Target, reasons: list[str]) -> Refusal | None:
    if target.writable:
        return None
    if target.hosts and target.kind in ("block", "group"):
        return Refusal(f"it writes ({', '.join(reasons)}) and {REMOTE_DEVICE}", read_only=True)
    return Refusal(
        f"it writes ({', '.join(reasons)}) and the target is read-only (writes need --allow-write, on a blank "
        "device or a scratch directory)",
        read_only=True,
    )


def write_refusal(target: Target, options: Mapping[str, str] | None = None) -> Refusal | None:
    """The write guard: why a job with these options may not run on `target`, or None when it may.

    `options` None asks for a write of the whole target (a precondition, a discard, holding it open for a
    run). A job that reads only is refused too when fio would write anyway: on an existing file shorter than
    its offset + size, fio extends the file by writing to it (a file iolab made is sized for the job).
    """
    job = JobOptions(options) if options is not None else None
    if job is not None and target.kind == "file" and target.size_bytes:
        problem = extent_problem(job, target.size_bytes)
        if problem:
            return Refusal(f"{problem}, and fio would extend the file by writing to it")
    reasons = job.write_reasons if job is not None else ["the whole target"]
    return _read_only_refusal(target, reasons) if reasons else None


def check_write(name: str, target: Target, options: Mapping[str, str] | None = None) -> None:
    """UserError when the write guard refuses this job on this target (`write_refusal`)."""
    refusal = write_refusal(target, options)
    if refusal is not None:
        raise UserError(f"{name}: refusing to run on {target.path}: {refusal.reason}")


def writable_target(target: Target, allow_write: bool) -> Target:
    """The target as the write guard lets it be written, by every executor: a file or directory iolab
    creates is its own to write; anything else only with `allow_write`, and then only a blank block device
    of this host that nothing sits on (an existing file never: iolab writes only files it creates)."""
    if target.scratch:
        return target
    if not allow_write:
        return replace(target, writable=False)
    if target.hosts and target.kind in ("block", "group"):
        raise UserError(f"refusing to write to {target.path}: {REMOTE_DEVICE}")
    if target.kind == "file" and guards.active("existing-file-refusal"):
        raise UserError(
            f"{target.path} is an existing file: iolab never writes to a file it did not create; give its "
            "directory for a scratch file, or drop --allow-write to read it"
        )
    if target.kind == "block":
        check_writable(target.filename)
        pathchain.check_parent(target.filename)  # /dev, as a rule; a node elsewhere is held to it too
    return replace(target, writable=True)


def devices_to_hold(targets: Iterable[Target]) -> list[str]:
    """The node of every block device of this host the write guard lets these targets write: the run holds
    each open with O_EXCL (`blank.held`) and remembers what it left on them (`blank.remember_written`)."""
    found: dict[str, None] = {}
    for target in targets:
        if not target.hosts and target.kind in ("block", "group") and write_refusal(target) is None:
            found.update(dict.fromkeys(target.members or (target.filename,)))
    return list(found)
