"""Host-wide facts: OS, kernel and its command line, CPU, NUMA, IOMMU, memory."""

from __future__ import annotations

import re
from typing import Any

from iolab.models.host_settings import CPUFREQ, active_choice, host_setting
from iolab.models.snapshot import KERNEL_DEBUG_OPTIONS
from iolab.probe.root import Root

CPU = "/sys/devices/system/cpu"

# Kernel options the snapshot keeps: those whose cost shows up in every I/O (catalogue KERN-DEBUG), and
# the IOMMU's default mode.
DEBUG_CONFIG = (
    *KERNEL_DEBUG_OPTIONS,
    "CONFIG_IOMMU_DEFAULT_DMA_STRICT",
    "CONFIG_IOMMU_DEFAULT_DMA_LAZY",
    "CONFIG_IOMMU_DEFAULT_PASSTHROUGH",
)


def count_cpulist(text: str | None) -> int | None:
    """Number of CPUs in a list like `0-31,64-95`."""
    if not text or not text.strip():
        return None
    total = 0
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        total += int(hi) - int(lo) + 1 if hi else 1
    return total


def _os_name(root: Root) -> str | None:
    text = root.read_text("/etc/os-release") or root.read_text("/usr/lib/os-release") or ""
    match = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', text, re.M)
    return match.group(1) if match else None


def _cpuinfo(root: Root) -> dict[str, Any]:
    text = root.read_text("/proc/cpuinfo") or ""
    model = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
    vendor = re.search(r"^vendor_id\s*:\s*(.*)$", text, re.M)
    flags = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    sockets = set(re.findall(r"^physical id\s*:\s*(\d+)", text, re.M))
    return {
        "cpu_model": model.group(1).strip() if model else None,
        "cpu_vendor": vendor.group(1).strip() if vendor else None,
        "hypervisor": ("hypervisor" in flags.group(1).split()) if flags else None,
        "sockets": len(sockets) or None,
    }


def _kernel_config(root: Root, release: str | None) -> dict[str, str]:
    """The debug/IOMMU options of the running kernel's build config, where installed."""
    text = root.read_text(f"/boot/config-{release}") if release else None
    if text is None:
        return {}
    found = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in DEBUG_CONFIG:
            found[key] = value
    return found


def _fstrim_timer(root: Root) -> str | None:
    """`enabled`, `disabled` or `absent` for systemd's fstrim.timer; None without systemd."""
    wants = "/etc/systemd/system/timers.target.wants/fstrim.timer"
    if root.exists(wants) or root.is_symlink(wants):
        return "enabled"
    units = ("/lib/systemd/system/fstrim.timer", "/usr/lib/systemd/system/fstrim.timer")
    if any(root.exists(u) for u in units):
        return "disabled"
    return "absent" if root.exists("/lib/systemd") or root.exists("/usr/lib/systemd") else None


def _userspace_nvme(root: Root) -> dict[str, str]:
    """NVMe functions (PCI class 0x010802) bound to a user-space driver such as SPDK's."""
    found = {}
    for address in root.listdir("/sys/bus/pci/devices"):
        if root.read_value(f"/sys/bus/pci/devices/{address}/class") == "0x010802":
            driver = root.link_name(f"/sys/bus/pci/devices/{address}/driver")
            if driver in ("vfio-pci", "uio_pci_generic", "igb_uio"):
                found[address] = driver
    return found


def read_memory(root: Root) -> int | None:
    """MemTotal in bytes, the yardstick for "does the data set fit in the page cache"."""
    match = re.search(r"^MemTotal:\s*(\d+)\s*kB", root.read_text("/proc/meminfo") or "", re.M)
    return int(match.group(1)) * 1024 if match else None


def _cpufreq(root: Root) -> dict[str, Any]:
    """Each cpufreq policy's governor, read once through its `HostSetting`, and the scaling driver."""
    governor = host_setting("governor")
    policies = [p for p in root.listdir(CPUFREQ) if p.startswith("policy")]
    return {
        "governors": {p: governor.current(root.read_value(governor.path(p))) or "?" for p in policies},
        "cpufreq_driver": root.read_value(f"{CPUFREQ}/{policies[0]}/scaling_driver") if policies else None,
    }


def _named_values(root: Root, directory: str, file: str, missing: str = "?") -> dict[str, str]:
    """`file` in each entry of `directory`, by entry name (`missing` when unreadable)."""
    return {entry: root.read_value(f"{directory}/{entry}/{file}") or missing for entry in root.listdir(directory)}


def read_host(root: Root) -> dict[str, Any]:
    """Host fields of a Snapshot, as keyword arguments."""
    release = root.read_value("/proc/sys/kernel/osrelease")
    vulns = {n: root.read_value(f"{CPU}/vulnerabilities/{n}") or "" for n in root.listdir(f"{CPU}/vulnerabilities")}
    nodes = {
        n: root.read_value(f"/sys/devices/system/node/{n}/cpulist") or ""
        for n in root.listdir("/sys/devices/system/node")
        if re.match(r"^node\d+$", n)
    }
    osc_dirs = ("/sys/fs/lustre/osc", "/proc/fs/lustre/osc")
    lustre = {f"{d}/{o}": root.read_value(f"{d}/{o}/checksums") or "?" for d in osc_dirs for o in root.listdir(d)}
    return {
        "hostname": root.read_value("/proc/sys/kernel/hostname"),
        "os_name": _os_name(root),
        "kernel": release,
        "cmdline": root.read_value("/proc/cmdline"),
        "cpus_online": count_cpulist(root.read_value(f"{CPU}/online")),
        "numa_nodes": nodes,
        "vulnerabilities": vulns,
        **_cpufreq(root),
        "iommu_units": root.listdir("/sys/class/iommu"),
        "iommu_group_types": _named_values(root, "/sys/kernel/iommu_groups", "type"),
        "mem_total_bytes": read_memory(root),
        "thp_enabled": active_choice(root.read_value("/sys/kernel/mm/transparent_hugepage/enabled")),
        "aspm_policy": active_choice(root.read_value("/sys/module/pcie_aspm/parameters/policy")),
        "clocksource": root.read_value("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        "kernel_config": _kernel_config(root, release),
        "fstrim_timer": _fstrim_timer(root),
        "nfsd_threads": root.read_int("/proc/fs/nfsd/threads"),
        "lustre_checksums": lustre,
        "userspace_nvme": _userspace_nvme(root),
        **_cpuinfo(root),
    }
