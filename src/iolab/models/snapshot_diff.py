"""What changed between two snapshots: kernel, command line, firmware, queue settings...

A pure function of two Snapshots, so it lives with them: the store reads what changed between two
stored runs without knowing how a host is probed.
"""

from __future__ import annotations

from collections import Counter

from iolab.models.host_settings import names as host_setting_names
from iolab.models.snapshot import BlockDevice, Change, FileSystem, Snapshot

_HOST_FIELDS = (
    "hostname",
    "os_name",
    "kernel",
    "cpu_model",
    "cpus_online",
    "mem_total_bytes",
    "cpufreq_driver",
    "thp_enabled",
    "aspm_policy",
    "fstrim_timer",
)
_DEVICE_FIELDS = (
    "model",
    "serial",
    "firmware",
    "size_bytes",
    "rotational",
    "scheduler",
    "wbt_lat_usec",
    "read_ahead_kb",
    "nr_requests",
    "max_sectors_kb",
    "numa_node",
    "transport",
)
_SMART_FIELDS = ("critical_warning", "avail_spare", "percent_used", "media_errors")
# Fullness moves with every run; a change under one point is noise, not an event.
FULLNESS_STEP = 1.0


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _pair(subject: str, what: str, before: object, after: object) -> list[Change]:
    a, b = _text(before), _text(after)
    return [Change(subject, what, a, b)] if a != b else []


def _counted(values: dict[str, str]) -> str:
    return ", ".join(f"{k}x{n}" for k, n in sorted(Counter(values.values()).items()))


def _device_changes(a: BlockDevice, b: BlockDevice) -> list[Change]:
    """What changed on a device present in both snapshots: its fields, its settings, its link and health."""
    out: list[Change] = []
    for name in _DEVICE_FIELDS:
        out += _pair(a.name, name, getattr(a, name), getattr(b, name))
    for name in host_setting_names():  # the other settings a plan can sweep, where both snapshots read them
        if name not in _DEVICE_FIELDS and name in a.host_settings and name in b.host_settings:
            out += _pair(a.name, name, a.host_settings[name], b.host_settings[name])
    return out + _pcie_and_smart(a, b)


def _pcie_and_smart(a: BlockDevice, b: BlockDevice) -> list[Change]:
    """A device's PCIe link, IOMMU domain and SMART fields, where either snapshot read them."""
    out = _pair(a.name, "PCIe link", a.pcie.describe() if a.pcie else None, b.pcie.describe() if b.pcie else None)
    out += _pair(a.name, "IOMMU domain", a.pcie and a.pcie.iommu_type, b.pcie and b.pcie.iommu_type)
    for name in _SMART_FIELDS:
        out += _pair(a.name, f"SMART {name}", a.smart and getattr(a.smart, name), b.smart and getattr(b.smart, name))
    return out


def _fs_changes(a: FileSystem, b: FileSystem) -> list[Change]:
    out = _pair(a.mount_point, "type", a.fs_type, b.fs_type) + _pair(a.mount_point, "source", a.source, b.source)
    out += _pair(a.mount_point, "options", ",".join(a.options), ",".join(b.options))
    ua, ub = a.used_percent, b.used_percent
    if (ua is None) != (ub is None) or (ua is not None and ub is not None and abs(ua - ub) >= FULLNESS_STEP):
        out.append(
            Change(
                a.mount_point, "used", f"{ua:.1f}%" if ua is not None else "", f"{ub:.1f}%" if ub is not None else ""
            )
        )
    return out


def diff_snapshots(a: Snapshot, b: Snapshot) -> list[Change]:
    """Every difference between `a` (before) and `b` (after) that can matter for storage.

    Pure: reads the two snapshots only. Kernel command-line tokens are
    compared one by one so `+mitigations=off` reads as one change.
    """
    return _host_changes(a, b) + _device_list_changes(a, b) + _mount_changes(a, b)


def _host_changes(a: Snapshot, b: Snapshot) -> list[Change]:
    """The host's fields, command line (token by token), vulnerabilities, governors, IOMMU and kernel config."""
    changes: list[Change] = []
    for name in _HOST_FIELDS:
        changes += _pair("host", name.replace("_", " "), getattr(a, name), getattr(b, name))
    tokens_a, tokens_b = (a.cmdline or "").split(), (b.cmdline or "").split()
    changes += [Change("host", "cmdline", token, "") for token in tokens_a if token not in tokens_b]
    changes += [Change("host", "cmdline", "", token) for token in tokens_b if token not in tokens_a]
    for key in sorted(set(a.vulnerabilities) | set(b.vulnerabilities)):
        changes += _pair("host", f"vulnerability {key}", a.vulnerabilities.get(key), b.vulnerabilities.get(key))
    changes += _pair("host", "cpufreq governors", _counted(a.governors), _counted(b.governors))
    changes += _pair("host", "IOMMU group types", _counted(a.iommu_group_types), _counted(b.iommu_group_types))
    for key in sorted(set(a.kernel_config) | set(b.kernel_config)):
        changes += _pair("host", key, a.kernel_config.get(key), b.kernel_config.get(key))
    return changes


def _device_list_changes(a: Snapshot, b: Snapshot) -> list[Change]:
    """Devices that appeared or went, and what changed on those in both."""
    changes: list[Change] = []
    devs_a, devs_b = {d.name: d for d in a.devices}, {d.name: d for d in b.devices}
    for name in sorted(set(devs_a) | set(devs_b)):
        if name not in devs_b:
            changes.append(Change(name, "device", "present", ""))
        elif name not in devs_a:
            changes.append(Change(name, "device", "", "present"))
        else:
            changes += _device_changes(devs_a[name], devs_b[name])
    return changes


def _mount_changes(a: Snapshot, b: Snapshot) -> list[Change]:
    """Mounts that appeared or went, and what changed on those in both."""
    changes: list[Change] = []
    fs_a, fs_b = {f.mount_point: f for f in a.filesystems}, {f.mount_point: f for f in b.filesystems}
    for mp in sorted(set(fs_a) | set(fs_b)):
        if mp not in fs_b:
            changes.append(Change(mp, "mount", fs_a[mp].fs_type, ""))
        elif mp not in fs_a:
            changes.append(Change(mp, "mount", "", fs_b[mp].fs_type))
        else:
            changes += _fs_changes(fs_a[mp], fs_b[mp])
    return changes


def target_scope(*snapshots: Snapshot) -> set[str] | None:
    """The subjects that concern the runs' targets: each target's disk and what it is built on (dm/md
    members), and its file system's mount point. None when no snapshot names a target (an older run)."""
    scope: set[str] = set()
    for snap in snapshots:
        queue = [t.device for t in snap.targets if t.device]
        scope |= {t.mount_point for t in snap.targets if t.mount_point}
        while queue:
            name = queue.pop()
            if name in scope:
                continue
            scope.add(name)
            device = snap.device(name)
            queue += device.slaves if device else []
    return scope or None


def scoped(changes: list[Change], a: Snapshot, b: Snapshot) -> list[Change]:
    """The changes that can matter for the targets the runs measured: host-wide settings, and the targets'
    devices and file systems; another user's mount filling up, or a disk no target is on, is left out."""
    scope = target_scope(a, b)
    if scope is None:
        return changes
    return [c for c in changes if c.subject == "host" or c.subject in scope]
