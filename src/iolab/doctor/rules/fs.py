"""File-system, mount and TRIM rules (catalogue B9)."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding
from iolab.models.snapshot import NETWORK_FILESYSTEMS, RAM_FILESYSTEMS, BlockDevice, FileSystem, Snapshot


def _filesystems(ctx: Context) -> list[FileSystem]:
    """The targets' file systems, else every block-backed one."""
    snap = ctx.snapshot
    if snap is None:
        return []
    mounts = [t.mount_point for t in snap.targets if t.mount_point]
    if mounts:
        return [fs for fs in snap.filesystems if fs.mount_point in mounts]
    return [fs for fs in snap.filesystems if not fs.major_minor.startswith("0:")]


@rule(
    id="FS-TARGET-IN-RAM",
    family="fs",
    level="critical",
    needs="snapshot",
    title="Benchmark target lives in RAM",
    applies="targets named on the command line or in the run",
    trigger="the target's file system is tmpfs/ramfs/devtmpfs, or its device is zram/brd/ram or a loop device on a file in RAM",
    why="This is not storage: the benchmark measures memory.",
    fix="Point the benchmark at a directory or device on the storage you mean to measure.",
    evidence="target, mount point, file system type, device",
    source="/proc/self/mountinfo",
)
def target_in_ram(ctx: Context, r: Rule) -> Iterator[Finding]:
    seen: set[str | None] = set()  # target paths, and jobs' (a job may not know its path)
    for target in ctx.snapshot.targets if ctx.snapshot else []:
        if target.ram_backed or target.fs_type in RAM_FILESYSTEMS:
            seen.add(target.path)
            yield r.finding(
                f"{target.path} is on {target.fs_type or target.device}, which keeps its data in RAM",
                target.path,
                {"mount": target.mount_point, "fs": target.fs_type, "device": target.device},
            )
    for job in ctx.jobs:
        if job.ram_backed and job.target_path not in seen:
            seen.add(job.target_path)
            yield r.finding(f"{job.target_path} is RAM-backed", job.target_path or job.name, {"job": job.name})


@rule(
    id="FS-FULL",
    family="fs",
    level="medium",
    needs="snapshot",
    title="File system nearly full",
    applies="block-backed file systems (or the targets')",
    trigger="used >= 75%",
    why="Allocators fall back to fragmented free space and the SSD has less free area for garbage collection; "
    "writes commonly degrade past 75% fullness.",
    fix="Benchmark on an emptier, trimmed file system; delete data and fstrim; rebalance.",
    evidence="used %, size, free",
    source="wiki.lustre.org Handling_Full_OSTs",
)
def full(ctx: Context, r: Rule) -> Iterator[Finding]:
    for fs in _filesystems(ctx):
        used = fs.used_percent
        if used is None:
            yield r.not_evaluated(f"fullness of {fs.mount_point} unknown (statvfs not read)", fs.mount_point)
        elif used >= 75:
            yield r.finding(
                f"{fs.mount_point} is {used:.0f}% full",
                fs.mount_point,
                {
                    "used": f"{used:.1f}%",
                    "size": f"{(fs.size_bytes or 0) / 1e9:.1f} GB",
                    "available": f"{(fs.avail_bytes or 0) / 1e9:.1f} GB",
                },
            )


@rule(
    id="FS-DISCARD-ONLINE",
    family="fs",
    level="low",
    needs="snapshot",
    title="Continuous (online) discard mount option",
    applies="block-backed file systems",
    trigger="mount options contain discard (or discard=sync/async)",
    why="Inline discards add work to the delete and overwrite path; Red Hat recommends periodic fstrim instead, "
    "online discard only where batch discard is infeasible. Matters for file-creating jobs.",
    fix="Remount without discard and enable fstrim.timer.",
    evidence="mount options",
    source="Red Hat 'Discarding unused blocks'",
)
def discard_online(ctx: Context, r: Rule) -> Iterator[Finding]:
    for fs in _filesystems(ctx):
        opts = [o for o in fs.options if o == "discard" or o.startswith("discard=")]
        if opts:
            yield r.finding(
                f"{fs.mount_point} is mounted with {opts[0]}",
                fs.mount_point,
                {"options": ",".join(dict.fromkeys(fs.options))},
            )


def _untrimmed_ssd(snap: Snapshot, fs: FileSystem) -> BlockDevice | None:
    """The SSD under `fs` when it could be trimmed (it takes discards) and `fs` is not mounted with discard."""
    device = next((d for d in snap.devices if d.major_minor == fs.major_minor or fs.source == f"/dev/{d.name}"), None)
    if device is None or device.rotational is not False or not device.discard_max_bytes:
        return None
    return None if any(o == "discard" or o.startswith("discard=") for o in fs.options) else device


@rule(
    id="FS-NO-TRIM",
    family="fs",
    level="medium",
    needs="snapshot",
    title="SSD-backed file system never trimmed",
    applies="file systems on non-rotational devices that support discard",
    trigger="no discard mount option and fstrim.timer not enabled",
    why="Without TRIM the SSD treats deleted data as live, so garbage collection copies it: mid-run bandwidth dips "
    "(they go away after blkdiscard or fstrim).",
    fix="fstrim -av now and systemctl enable --now fstrim.timer; for a scratch device, blkdiscard (destroys data) then precondition.",
    evidence="device, discard_max_bytes, fstrim.timer state",
    source="Fedora Changes/EnableFSTrimTimer; Red Hat 'Discarding unused blocks'",
)
def no_trim(ctx: Context, r: Rule) -> Iterator[Finding]:
    snap = ctx.snapshot
    if snap is None:
        return
    for fs in _filesystems(ctx):
        device = _untrimmed_ssd(snap, fs)
        if device is None:
            continue
        if snap.fstrim_timer is None:
            yield r.not_evaluated("fstrim.timer state unknown (no systemd files)", fs.mount_point)
        elif snap.fstrim_timer != "enabled":
            yield r.finding(
                f"{fs.mount_point} on SSD {device.name} is not trimmed (fstrim.timer {snap.fstrim_timer})",
                fs.mount_point,
                {
                    "device": device.name,
                    "discard_max_bytes": device.discard_max_bytes,
                    "fstrim.timer": snap.fstrim_timer,
                },
            )


@rule(
    id="FS-SYNC-MOUNT",
    family="fs",
    level="medium",
    needs="snapshot",
    title="Synchronous or data-journaling mount",
    applies="mounted file systems",
    trigger="mount options contain sync, dirsync, data=journal or wsync",
    why="Every write waits for stable storage or is written twice; compare like with like.",
    fix="Benchmark with the mount options production uses, and say which they are.",
    evidence="mount options",
    source="mount(8), ext4 data=journal",
)
def sync_mount(ctx: Context, r: Rule) -> Iterator[Finding]:
    for fs in _filesystems(ctx):
        hits = [o for o in fs.options if o in ("sync", "dirsync", "data=journal", "wsync")]
        if hits:
            yield r.finding(
                f"{fs.mount_point} is mounted {','.join(hits)}", fs.mount_point, {"options": ",".join(fs.options)}
            )


def network_filesystems(ctx: Context, kinds: frozenset[str] = NETWORK_FILESYSTEMS) -> list[FileSystem]:
    """Network file systems of the snapshot (NFS, Lustre rules)."""
    return [fs for fs in ctx.snapshot.filesystems if fs.fs_type in kinds] if ctx.snapshot else []
