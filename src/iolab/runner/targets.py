"""Turning what the user named (a directory, a file, a device) into a checked `Target`.

Scratch size: a directory target gets a scratch file of 2 GiB, or a tenth
of the free space when that is less (never under 64 MiB). 2 GiB is large
enough that a drive's internal read cache cannot serve a random test from
memory and that writing it first costs seconds on an SSD, so the quick
preset stays near a minute; `--size` asks for more (e.g. past an SLC
write cache). A plan whose every workload names its own `size` gets a
scratch file of what they reach instead (`scratch_bytes`): fio would touch
no more of it, and a small file system that holds 128 MiB is not refused
for lacking the 640 MiB the default needs.
"""

from __future__ import annotations

import errno
import os
import stat
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from iolab import guards, pathchain
from iolab.errors import UserError
from iolab.fio.options import check_path
from iolab.models import Target, Workload
from iolab.models.job_options import JobOptions
from iolab.models.snapshot import RAM_FILESYSTEMS
from iolab.probe.fs import mount_of, ram_backed_device
from iolab.probe.root import Root
from iolab.runner.safety import kernel_name, writable_target
from iolab.runner.scratch import scratch_filename

DEFAULT_SCRATCH = 2 << 30
MIN_SCRATCH = 64 << 20
_MIB = 1 << 20  # the scratch file is written in 1 MiB blocks before it is read

_TARGET_HELP = (
    "give an existing directory (a scratch file is made inside), a file, or a block device such as /dev/nvme0n1"
)


def supports_direct(directory: Path) -> bool:
    """Whether the file system under `directory` accepts O_DIRECT (tmpfs before Linux 6.6 does not): a probe
    file of a fresh name, made in the directory held after its chain was checked (only for a directory iolab
    writes in anyway: its scratch file goes there), and removed at once."""
    probe = directory / f".iolab-odirect-{uuid.uuid4().hex[:8]}"
    try:
        fd = pathchain.create_file(str(probe), os.O_WRONLY | os.O_DIRECT)
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise UserError(
            f"cannot create a file in {directory}: {exc.strerror}; choose a directory you can write"
        ) from None
    os.close(fd)
    probe.unlink(missing_ok=True)
    return True


def reads_direct(path: str) -> bool:
    """Whether an existing file can be read with O_DIRECT, asked of the file itself, opened read-only: a
    run that only reads creates, renames and removes nothing beside the user's file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT | os.O_CLOEXEC)
    except OSError as exc:
        return exc.errno != errno.EINVAL
    os.close(fd)
    return True


def _free_bytes(directory: Path, ram_backed: bool, root: Root) -> int:
    """Free space; ramfs reports none at all, so memory available stands in for it."""
    vfs = os.statvfs(directory)
    if ram_backed and vfs.f_blocks == 0:
        for line in (root.read_text("/proc/meminfo") or "").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return vfs.f_bavail * vfs.f_frsize


def scratch_size(directory: Path, requested: int | None, free: int) -> int:
    """Bytes for a scratch file in `directory`, checked against its free space."""
    if requested is not None:
        if requested > free * 0.9:
            raise UserError(
                f"{directory} has {free / 2**30:.1f} GiB free, too little for a {requested / 2**30:.1f} GiB "
                "scratch file: free space or give a smaller --size"
            )
        return requested
    size = min(DEFAULT_SCRATCH, (free // 10) >> 20 << 20)
    if size < MIN_SCRATCH:
        raise UserError(
            f"{directory} has only {free >> 20} MiB free: iolab needs at least {MIN_SCRATCH * 10 >> 20} MiB"
        )
    return size


def workload_reach(options: Mapping[str, str]) -> int | None:
    """Bytes into the file a workload's own `offset` + `size` reach; None unless both are plain sizes (no
    `size`, or a percentage of the target, says nothing about how large the target should be)."""
    job = JobOptions(options)
    size = job.size("size")
    offset = job.size("offset") if job.given("offset") is not None else 0
    return None if size is None or offset is None else offset + size


def scratch_bytes(size: int | None, workloads: Sequence[Workload]) -> int | None:
    """The scratch file a directory target gets for these workloads: `size` (`--size`), else, when every
    workload names its own size, what they reach; never less than any of them reaches, so fio never has to
    grow the file. None: the default rule (`scratch_size`)."""
    reaches = [workload_reach(w.options) for w in workloads if not w.job.is_metadata]
    known = [-(-reach // _MIB) * _MIB for reach in reaches if reach is not None]  # whole MiB, for the fill
    if size is not None:
        return max([size, *known])
    if reaches and len(known) == len(reaches):
        return max(_MIB, *known)
    return None


def _fs_info(path: Path, root: Root) -> tuple[str | None, bool]:
    """The file system holding `path`, and whether its data is in RAM: a RAM file system, or one on a device
    that keeps its data in RAM (a loop device over a file in /dev/shm)."""
    mount = mount_of(str(path), root)
    fs_type = mount.fs_type if mount else None
    device = os.path.basename(mount.source) if mount and mount.source.startswith("/dev/") else ""
    return fs_type, fs_type in RAM_FILESYSTEMS or bool(device and ram_backed_device(device, root, RAM_FILESYSTEMS))


def _directory_target(path: Path, size: int | None, root: Root) -> Target:
    """A fresh scratch file inside `path`, of `size` bytes (None: the default rule); `path` resolved once and
    its chain checked (`pathchain`): fio opens the scratch file by name, through every directory above it."""
    if not os.access(path, os.W_OK | os.X_OK):
        raise UserError(f"{path}: you cannot write to this directory; choose one you can write, or run as its owner")
    resolved = Path(pathchain.check(str(path)).resolved)
    fs_type, ram = _fs_info(path, root)
    return Target(
        path=str(path),
        kind="directory",
        filename=scratch_filename(resolved),
        size_bytes=scratch_size(path, size, _free_bytes(path, ram, root)),
        scratch=True,
        writable=True,
        direct=supports_direct(resolved),
        ram_backed=ram,
        fs_type=fs_type,
    )


def _file_target(path: Path, size: int | None, root: Root) -> Target:
    """An existing file, read-only until the write guard says otherwise (it never does: `writable_target`).

    Its directory's chain is checked as a directory fio writes in: fio opens the file by name, and finding it
    shorter than the job (another file swapped in after iolab's checks) it lays it out again, unlinking the
    name and creating it `O_CREAT|O_TRUNC`, which follows a link planted meanwhile onto any file of root's.
    """
    if not os.access(path, os.R_OK):
        raise UserError(f"{path}: permission denied; run as a user who can read it")
    pathchain.check_parent(str(path.resolve()))
    length = path.stat().st_size
    if length == 0:
        raise UserError(f"{path} is empty: give a file with data to read, or a directory for a scratch file")
    fs_type, ram = _fs_info(path, root)
    return Target(
        path=str(path),
        kind="file",
        filename=str(path.resolve()),
        size_bytes=min(size or length, length),
        writable=False,
        direct=reads_direct(str(path.resolve())),
        ram_backed=ram,
        fs_type=fs_type,
    )


def identity_of(path: str) -> str:
    """What a path is now, following links: "block MAJ:MIN" for a device, "file DEV:INO" otherwise, and
    "missing" when nothing is there. Two equal identities are the same device or the same inode."""
    try:
        info = os.stat(path)
    except OSError:
        return "missing"
    if stat.S_ISBLK(info.st_mode):
        return f"block {os.major(info.st_rdev)}:{os.minor(info.st_rdev)}"
    return f"file {info.st_dev}:{info.st_ino}"


def _identity_paths(target: Target) -> list[str]:
    """The paths whose identity pins a target: what the user named and what fio opens (a device's
    resolved node, each member of an array); a scratch file's directory, since the file is made later."""
    if target.kind == "group":
        return list(target.members)
    if target.scratch:  # the file does not exist yet; iolab makes it in the directory resolved when checked
        return [os.path.dirname(target.filename)]
    return [target.path, target.filename]


def pinned(target: Target) -> Target:
    """The target with the identity of its paths now (`identity_of`), checked again before each point."""
    return replace(target, identity=",".join(identity_of(p) for p in _identity_paths(target)))


@guards.guard(
    "identity-change-stop", "a point on a target that is no longer what was checked (link switched, file replaced)"
)
def identity_change(target: Target) -> str | None:
    """How the target differs from what it was when it was checked, or None: a link switched to another
    device, a file replaced, a device node gone. Other hosts' targets are not this host's to check."""
    if not target.identity or target.hosts:
        return None
    now = pinned(target).identity
    if now == target.identity:
        return None
    return f"{target.path} is not what it was when iolab checked it (then {target.identity}; now {now})"


def _block_target(path: Path, size: int | None, root: Root) -> Target:
    name = kernel_name(str(path), root)
    sectors = (root.read_text(f"/sys/class/block/{name}/size") or "").strip()
    if not sectors.isdigit() or int(sectors) == 0:
        raise UserError(f"{path}: the kernel reports no size for this device (no media, or a detached loop device)")
    if not os.access(path, os.R_OK):
        raise UserError(f"{path}: permission denied; run as root or as a member of the disk group")
    length = int(sectors) * 512
    return Target(
        path=str(path),
        kind="block",
        filename=os.path.realpath(path),  # fio opens the node that was checked, never a link to re-follow
        size_bytes=min(size or length, length),
        direct=True,
        ram_backed=ram_backed_device(name, root, RAM_FILESYSTEMS),
    )


# Where a file named by a job is never made: device nodes and the kernel's own file systems. A job naming
# /dev/nvme0n2 that does not exist is a typo for a device, not a request for a file in RAM.
_NO_NEW_FILES = ("/dev", "/proc", "/sys")


def _new_file_target(p: Path, size: int | None, root: Root) -> Target:
    """A file a job names that does not exist yet: iolab makes it, as fio would, and removes it afterwards.

    It is made only in an existing directory the user can write, never under /dev, /proc or /sys, and
    only with a size (the job's `size=`, or --size): fio needs one to make a file, and iolab records the
    file before it exists, so `iolab clean` removes it after a killed run (`iolab.runner.scratch`).
    """
    parent = Path(pathchain.resolve(str(p.parent))[0])
    where = str(parent)
    if any(where == top or where.startswith(top + "/") for top in _NO_NEW_FILES):
        raise UserError(f"{p}: no such file or device; iolab makes no new files under {where}")
    if not parent.is_dir():
        raise UserError(f"{p}: no such file, and its directory {p.parent} does not exist: {_TARGET_HELP}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"{p}: no such file, and you cannot create one in {p.parent}")
    if size is None:
        raise UserError(
            f"{p} does not exist: give the job a size= (or --size) so a file of that size can be made for it"
        )
    pathchain.check_parent(str(p))
    fs_type, ram = _fs_info(parent, root)
    free = _free_bytes(parent, ram, root)
    if size > free * 0.9:
        raise UserError(
            f"{p.parent} has {free / 2**30:.1f} GiB free, too little for a {size / 2**30:.1f} GiB file: free space "
            "or give the job a smaller size="
        )
    return Target(
        path=str(p),
        kind="file",
        filename=str(parent / p.name),
        size_bytes=size,
        scratch=True,
        writable=True,
        direct=supports_direct(parent),
        ram_backed=ram,
        fs_type=fs_type,
    )


def resolve_target(
    path: str,
    allow_write: bool = False,
    size: int | None = None,
    root: Root | None = None,
    scratch: int | None = None,
    create: bool = False,
) -> Target:
    """Check a target the user named and describe it for fio; UserError when it cannot be used.

    `size` is what `--size` asked of any target; `scratch` the size of a file iolab makes (a directory's
    scratch file, a job's new file: `scratch_bytes`, `--size` or the plan's own sizes), checked against
    its free space. `create`: the path is a job's own file, which iolab makes when it does not exist
    (`_new_file_target`); a target given on the command line must exist (a typo must not become a file).
    """
    root = root or Root()
    if not path:
        raise UserError(f"an empty target: {_TARGET_HELP}")
    check_path(path, f"target {path!r}")
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        if create and not p.is_symlink():
            return pinned(_new_file_target(p, scratch if scratch is not None else size, root))
        raise UserError(f"{path}: no such file, directory or device; {_TARGET_HELP}") from None
    except NotADirectoryError:
        raise UserError(f"{path}: no such file, directory or device; {_TARGET_HELP}") from None
    except PermissionError:
        raise UserError(f"{path}: permission denied; run as a user who can read it") from None
    except OSError as exc:
        raise UserError(f"{path}: {exc.strerror}; {_TARGET_HELP}") from None
    if stat.S_ISDIR(mode):
        return pinned(_directory_target(p, scratch if scratch is not None else size, root))
    if stat.S_ISBLK(mode):
        return pinned(writable_target(_block_target(p, size, root), allow_write))
    if stat.S_ISREG(mode):
        return pinned(writable_target(_file_target(p, size, root), allow_write))
    raise UserError(f"{path} is not a directory, regular file or block device; {_TARGET_HELP}")
