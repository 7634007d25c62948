"""One block-device stack, read both ways: what sits on a device, and what devices lie beneath a path.

Linux stacks block devices in four ways, and each shows in /sys differently:

- a **partition** is a subdirectory of its disk carrying a `partition` file;
- a **holder** (device-mapper, LVM, md RAID, bcache) lists its lower devices in `slaves/`, and each lower
  device lists it in `holders/`;
- a **loop device** names its backing in `/sys/block/loopN/loop/backing_file`, at `loop/offset`, and
  appears in neither list: a loop device over a partition at 64 MiB is invisible to that partition's
  holders, mounts and signature;
- a **file system** is a mount of one of those (`/proc/self/mountinfo`, by device number), and a bind
  mount of a directory inside it has the same device number, so it resolves the same way.

Two questions use this one reader. Upwards (`above`): everything sitting on a device, transitively, which
the write guard refuses and the run's device watch watches. Downwards (`beneath`, `beneath_path`): the
whole devices whose counters carry a path's I/O, through partitions, holders and loop backing files, which
telemetry samples and the device-counter check (RES-FROM-CACHE) judges. A loop device whose backing file
is on no block device (tmpfs) is itself the bottom. Every read goes through `Root`, so a captured or
hand-made /sys tree stands in for the host; a backing file is resolved by `stat` on the live host only.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass

from iolab.errors import UserError
from iolab.probe.fs import mount_of, read_mounts
from iolab.probe.root import Root

_DEPTH = 16  # a stack deeper than this is a loop of loops: stop rather than recurse forever


@dataclass(frozen=True, order=True)
class Above:
    """One thing sitting on a device: `kind` is partition, holder, loop, mount or swap."""

    kind: str
    name: str  # loop1, dm-0, sda1; a mount point; a swap area
    on: str  # the device of the stack it sits on (kernel name)
    detail: str = ""  # a loop device's offset

    def describe(self, subject: str = "") -> str:
        """One phrase naming it, for a refusal or a stop ("loop7 is backed by loop3 (at offset 67108864)");
        the device `subject` is called "it"."""
        on = "it" if self.on == subject else self.on
        if self.kind == "partition":
            return f"{self.name} is a partition of {on}"
        if self.kind == "holder":
            return f"{self.name} holds {on} (device-mapper, LVM or RAID)"
        if self.kind == "loop":
            return f"{self.name} is backed by {on} (at offset {self.detail or '0'})"
        if self.kind == "mount":
            return f"{on} is mounted at {self.name}"
        return f"{on} is in use as swap ({self.name})"


def kernel_name(device: str, root: Root | None = None) -> str:
    """The kernel's name of a block device node, read from the device number the node carries, not from its
    name (/dev/disk/by-id/... → nvme0n1). A node can be named anything: a container's /dev/xvdb made for
    the host's nvme0n1, a node a tool made elsewhere. Judged by its name, the write guard would ask /sys
    about a device that is not the one written (or about none, and find nothing on it). A path that is not
    a block device of this host keeps the name it resolves to (a hand-made /sys tree names its stand-ins so)."""
    try:
        info = os.stat(device)
    except OSError:
        info = None
    if info is not None and stat.S_ISBLK(info.st_mode):
        found = name_of(f"{os.major(info.st_rdev)}:{os.minor(info.st_rdev)}", root or Root())
        if found:
            return found
    return os.path.basename(os.path.realpath(device))


def name_of(major_minor: str, root: Root) -> str | None:
    """Kernel name of the block device numbered "MAJ:MIN", or None when there is none."""
    if not root.exists(f"/sys/dev/block/{major_minor}"):
        return None
    return os.path.basename(root.realpath(f"/sys/dev/block/{major_minor}"))


def partitions_of(name: str, root: Root) -> list[str]:
    """Partitions the kernel knows for a whole device (loop0p1, nvme0n1p2, sda1)."""
    return [
        e for e in root.listdir(f"/sys/class/block/{name}") if root.exists(f"/sys/class/block/{name}/{e}/partition")
    ]


def holders_of(name: str, root: Root) -> list[str]:
    """Devices built on this one: device-mapper (LVM, crypt), md RAID, bcache."""
    return root.listdir(f"/sys/class/block/{name}/holders")


def _number(name: str, root: Root) -> str | None:
    return root.read_value(f"/sys/class/block/{name}/dev")


def _device_of_number(dev: int, root: Root) -> str | None:
    return name_of(f"{os.major(dev)}:{os.minor(dev)}", root)


def backing(loop: str, root: Root) -> tuple[str, str | None, bool] | None:
    """(backing file, the block device under it, whether the backing is that device itself) of a loop
    device; None when `loop` is not an attached loop device. The device is None when the backing file
    lives on no block device (tmpfs) or cannot be resolved."""
    path = (root.read_value(f"/sys/block/{loop}/loop/backing_file") or "").removesuffix(" (deleted)")
    if not path:
        return None
    if root.is_live:
        try:
            info = os.stat(path)
        except OSError:
            return path, None, False
        if stat.S_ISBLK(info.st_mode):
            return path, _device_of_number(info.st_rdev, root), True
        return path, _device_of_number(info.st_dev, root) or _mount_device(path, root), False
    # A captured tree: a device node names its device; a file, its mount's source.
    if path.startswith("/dev/") and root.exists(f"/sys/class/block/{os.path.basename(path)}"):
        return path, os.path.basename(path), True
    return path, _mount_device(path, root), False


def _mount_device(path: str, root: Root) -> str | None:
    """The device a path's mount names as its source (btrfs and overlay report an anonymous st_dev)."""
    mount = mount_of(path, root)
    if mount is None:
        return None
    by_source = _source_name(mount.source, root)
    if by_source is not None and not root.exists(f"/sys/class/block/{by_source}"):
        by_source = None
    return name_of(mount.major_minor, root) or by_source


def loops_by_device(root: Root) -> dict[str, list[str]]:
    """Device -> every loop device whose backing file is that device itself, at any offset. Read once for a
    whole stack: asking each device of it in turn read every loop's backing again (a stack of 15 devices over
    6 loop devices read 90 backings for 6)."""
    found: dict[str, list[str]] = {}
    for loop in root.listdir("/sys/block"):
        under = backing(loop, root)
        if under is not None and under[2] and under[1] is not None:
            found.setdefault(under[1], []).append(loop)
    return found


def _offset(loop: str, root: Root) -> str:
    return root.read_value(f"/sys/block/{loop}/loop/offset") or "0"


def above(name: str, root: Root | None = None) -> list[Above]:
    """Everything sitting on the device `name`, transitively: its partitions, holders and loop devices at
    any offset (and theirs), the mounts of any of them, and swap on any of them. Empty: nothing does."""
    root = root or Root()
    found: list[Above] = []
    seen = {name}
    queue = [name]
    loops = loops_by_device(root)
    while queue and len(seen) < 4096:
        device = queue.pop(0)
        layer = [Above("partition", p, device) for p in partitions_of(device, root)]
        layer += [Above("holder", h, device) for h in holders_of(device, root)]
        layer += [Above("loop", loop, device, _offset(loop, root)) for loop in loops.get(device, [])]
        for item in layer:
            found.append(item)
            if item.name not in seen:
                seen.add(item.name)
                queue.append(item.name)
    numbers = {number: device for device in seen if (number := _number(device, root))}
    for mount in read_mounts(root):
        under = numbers.get(mount.major_minor) or _source_name(mount.source, root)
        if under in seen:
            found.append(Above("mount", mount.mount_point, under))
    found += [Above("swap", area, device) for area, device in _swaps(root) if device in seen]
    return found


def _source_name(source: str, root: Root) -> str | None:
    """The kernel name of a mount's source device: btrfs (and other file systems on several devices)
    report an anonymous device number in mountinfo, so the source names the device instead."""
    if not source.startswith("/dev/"):
        return None
    return os.path.basename(root.realpath(source) if root.is_live else source)


def _swaps(root: Root) -> list[tuple[str, str]]:
    """(swap area, the kernel name of its device) of every swap device in /proc/swaps."""
    out = []
    for line in (root.read_text("/proc/swaps") or "").splitlines()[1:]:
        fields = line.split()
        if fields and fields[0].startswith("/dev/"):
            out.append((fields[0], _source_name(fields[0], root) or fields[0]))
    return out


def state(names: Iterable[str], root: Root | None = None) -> frozenset[str]:
    """What sits on each device now, as phrases (`Above.describe`, the device itself called "it"): two
    equal states are the same stack."""
    root = root or Root()
    return frozenset(item.describe(name) for name in names for item in above(name, root))


def beneath(name: str, root: Root | None = None, depth: int = 0) -> list[str]:
    """The whole devices at the bottom of `name`'s stack, in order: a partition's disk, a holder's lower
    devices (recursively), the device under a loop device's backing file. A device with nothing beneath it
    on this host (a disk, a loop over a tmpfs file) is its own bottom."""
    root = root or Root()
    base = f"/sys/class/block/{name}"
    if not root.exists(base):
        raise UserError(f"no block device named {name!r} in /sys/class/block")
    lower: list[str] = root.listdir(f"{base}/slaves")
    if not lower and root.exists(f"{base}/partition"):
        lower = [os.path.basename(os.path.dirname(root.realpath(base)))]  # .../block/sda/sda1: its disk
    if not lower:
        under = backing(name, root)
        lower = [under[1]] if under is not None and under[1] is not None else []
    if not lower or depth >= _DEPTH:
        return [name]
    found: list[str] = []
    for device in lower:
        for bottom in beneath(device, root, depth + 1):
            if bottom not in found:
                found.append(bottom)
    return found


def beneath_path(path: str, root: Root | None = None) -> list[str]:
    """The whole devices whose counters carry I/O to `path`: a block device node (any /dev link), or a file
    or directory on a mounted file system (a bind mount resolves like its source). Empty when no block
    device lies beneath (tmpfs, NFS): there is nothing on this host to watch."""
    root = root or Root()
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file or device; give an existing device, file or directory") from None
    except PermissionError:
        raise UserError(f"{path}: permission denied; run as a user who can read it") from None
    if stat.S_ISBLK(info.st_mode):
        name = _device_of_number(info.st_rdev, root)
    else:
        name = _device_of_number(info.st_dev, root) or _mount_device(path, root)
    return beneath(name, root) if name is not None else []
