"""Take a `Snapshot` of a host (live or captured) and resolve the targets named."""

from __future__ import annotations

import os
import stat

from iolab.errors import UserError
from iolab.models.snapshot import RAM_FILESYSTEMS, Snapshot, TargetInfo
from iolab.probe.block import device_for_major_minor, list_disks, read_device
from iolab.probe.device_stack import kernel_name
from iolab.probe.fs import filesystem_of, ram_backed_device, read_filesystems
from iolab.probe.host import read_host
from iolab.probe.root import Root


def _resolve_target(root: Root, path: str, snap: Snapshot) -> TargetInfo:
    """Map a path the user named to its file system and whole disk.

    On the live machine the path must exist (a typo is a UserError); in a
    captured tree it is resolved by the tree's own links (never by this
    machine's) and matched against the captured mounts.
    """
    if root.is_live:
        try:
            st = os.stat(path)
        except OSError as exc:
            raise UserError(
                f"target {path}: {exc.strerror}; name an existing file, directory or block device"
            ) from None
        if stat.S_ISBLK(st.st_mode):
            return _live_block_device(root, path, f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}")
        path = os.path.realpath(path)
    elif path.startswith("/dev/"):
        name = os.path.basename(path)
        read_mm = root.read_value(f"/sys/class/block/{name}/dev")  # None in a capture without it
        device = device_for_major_minor(root, read_mm) if read_mm else None
        return TargetInfo(
            path=path, device=device or name, is_block_device=True, ram_backed=_in_ram(root, name, device)
        )
    elif path.startswith("/"):
        path = root.realpath(path)
    return _on_filesystem(root, path, snap)


def _on_filesystem(root: Root, path: str, snap: Snapshot) -> TargetInfo:
    """A file or directory: the mount holding it and the disk under that mount (none for a network or RAM one)."""
    fs = filesystem_of(path, snap.filesystems)
    if fs is None:
        return TargetInfo(path=path)
    device = device_for_major_minor(root, fs.major_minor) if not fs.major_minor.startswith("0:") else None
    source = os.path.basename(fs.source) if fs.source.startswith("/dev/") else ""
    ram = fs.fs_type in RAM_FILESYSTEMS or _in_ram(root, source, device)
    return TargetInfo(path=path, device=device, mount_point=fs.mount_point, fs_type=fs.fs_type, ram_backed=ram)


def _live_block_device(root: Root, path: str, major_minor: str) -> TargetInfo:
    """A block device named on the live machine, with a sample of its blocks (`sample_blocks`)."""
    sampled, with_data = sample_blocks(path)
    device = device_for_major_minor(root, major_minor)
    return TargetInfo(
        path=path,
        device=device,
        is_block_device=True,
        blocks_sampled=sampled,
        blocks_with_data=with_data,
        ram_backed=_in_ram(root, kernel_name(path, root), device),
    )


def _in_ram(root: Root, name: str, whole: str | None) -> bool:
    """Whether the device `name` (or the whole disk it belongs to) keeps its data in RAM."""
    return any(ram_backed_device(n, root, RAM_FILESYSTEMS) for n in {name, whole} if n)


SAMPLED_BLOCKS = 64
_BLOCK = 4096


def sample_blocks(path: str) -> tuple[int | None, int | None]:
    """(blocks read, blocks holding data) of a block device, 64 blocks of 4 KiB spread over it.

    Whether a read test measures media or an SSD answering "never written" from its mapping table
    (FIO-UNWRITTEN-READ) shows in the data: such blocks read as zeros. 256 KiB of reads, dropped from the
    page cache afterwards; (None, None) when the device cannot be read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None, None
    try:
        blocks = os.lseek(fd, 0, os.SEEK_END) // _BLOCK
        if blocks <= 0:
            return None, None
        offsets = sorted({(i * blocks // SAMPLED_BLOCKS) * _BLOCK for i in range(SAMPLED_BLOCKS)})
        with_data = sum(1 for offset in offsets if os.pread(fd, _BLOCK, offset).strip(b"\0"))
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return len(offsets), with_data
    except OSError:
        return None, None
    finally:
        os.close(fd)


def take_snapshot(root: Root | None = None, targets: list[str] | tuple[str, ...] = ()) -> Snapshot:
    """Probe the host behind `root` (default the live machine); reads only, no I/O load.

    Raises UserError when `root` is not a directory that looks like a host tree.
    """
    root = _host_tree(root or Root("/"))
    snap = Snapshot(**read_host(root))
    snap.devices = [read_device(root, name) for name in list_disks(root)]
    snap.filesystems = read_filesystems(root)
    snap.targets = [_resolve_target(root, t, snap) for t in targets]
    target_mounts = {t.mount_point for t in snap.targets if t.mount_point}
    if target_mounts - {f.mount_point for f in snap.filesystems if f.size_bytes is not None}:
        snap.filesystems = read_filesystems(root, statvfs_mounts=target_mounts)  # their fullness too
    snap.devices += [read_device(root, name) for name in _unlisted_devices(snap)]
    snap.unreadable = _unreadable(snap)
    return snap


def _host_tree(root: Root) -> Root:
    """`root` when it looks like a host tree; UserError saying what to point it at when not (a root that is no
    directory is refused when it is made: `probe.tree`)."""
    if not (root.exists("/sys") or root.exists("/proc")):
        raise UserError(f"--root {root.base}: no sys/ or proc/ inside; point it at a captured tree")
    return root


def _unlisted_devices(snap: Snapshot) -> list[str]:
    """The targets' devices `list_disks` left out (an unused-looking loop device, a RAM disk named as a target)."""
    known = {d.name for d in snap.devices}
    return list(dict.fromkeys(t.device for t in snap.targets if t.device and t.device not in known))


def _unreadable(snap: Snapshot) -> list[str]:
    """Inputs a normal host has that this probe could not read, with the reason."""
    missing = []
    for device in snap.devices:
        if device.smart_error:
            missing.append(f"{device.name} SMART: {device.smart_error}")
    if snap.cmdline is None:
        missing.append("/proc/cmdline unreadable")
    if not snap.vulnerabilities:
        missing.append("/sys/devices/system/cpu/vulnerabilities unreadable")
    return missing
