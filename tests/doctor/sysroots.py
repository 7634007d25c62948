"""Build edited host trees from the real capture in tests/data/sysroots/vm-amd.

vm-amd is `iolab probe --save` of the development VM (AMD EPYC, Firecracker,
one virtio disk), unedited. It has no NVMe drive, so `add_nvme` models one the
way sysfs lays it out (PCI root port -> endpoint -> nvme0 -> nvme0n1), with
the namespace's queue files copied from the real vda and edited to NVMe
defaults. Each case then edits one value, as a broken machine would show it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

BASE = Path(__file__).resolve().parents[1] / "data" / "sysroots" / "vm-amd"
PORT = "sys/devices/pci0000:00/0000:00:01.1"
ENDPOINT = f"{PORT}/0000:01:00.0"
CTRL = f"{ENDPOINT}/nvme/nvme0"
NS = f"{CTRL}/nvme0n1"
REAL_DISK = "sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda"

HEALTHY_SMART = {
    "critical_warning": 0,
    "temperature": 310,
    "avail_spare": 100,
    "spare_thresh": 10,
    "percent_used": 3,
    "data_units_read": 1234567,
    "data_units_written": 2345678,
    "media_errors": 0,
    "num_err_log_entries": 0,
    "warning_temp_time": 0,
    "critical_comp_time": 0,
}


def write(tree: Path, rel: str, text: str) -> None:
    path = tree / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text.endswith("\n") else text + "\n")


def link(tree: Path, rel: str, target_rel: str) -> None:
    """A relative symlink at `rel` pointing at tree path `target_rel`, as sysfs has them."""
    path = tree / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.exists():
        path.unlink()
    os.symlink(os.path.relpath(tree / target_rel, path.parent), path)


def copy_base(dest: Path) -> Path:
    shutil.copytree(BASE, dest, symlinks=True)
    return dest


def set_link(tree: Path, pci_dir: str, speed: str, width: int, max_speed: str, max_width: int) -> None:
    write(tree, f"{pci_dir}/current_link_speed", speed)
    write(tree, f"{pci_dir}/current_link_width", str(width))
    write(tree, f"{pci_dir}/max_link_speed", max_speed)
    write(tree, f"{pci_dir}/max_link_width", str(max_width))


def mountinfo(tree: Path) -> Path:
    return (tree / "proc" / "self").resolve() / "mountinfo"


def set_statvfs(tree: Path, mount_point: str, size: int, used: int) -> None:
    path = tree / "iolab" / "statvfs.json"
    table = json.loads(path.read_text())
    table[mount_point] = {"size_bytes": size, "used_bytes": used, "avail_bytes": size - used}
    path.write_text(json.dumps(table))


def set_smart(tree: Path, **values: int) -> None:
    write(tree, "iolab/commands/nvme-smart-log-nvme0.json", json.dumps({**HEALTHY_SMART, **values}))


def add_nvme(tree: Path) -> Path:
    """A healthy Gen4 x4 NVMe drive with an ext4 partition mounted at /data."""
    set_link(tree, PORT, "16.0 GT/s PCIe", 4, "16.0 GT/s PCIe", 4)
    set_link(tree, ENDPOINT, "16.0 GT/s PCIe", 4, "16.0 GT/s PCIe", 4)
    write(tree, f"{ENDPOINT}/numa_node", (tree / "sys/devices/pci0000:00/0000:00:02.0/numa_node").read_text())
    write(tree, f"{ENDPOINT}/class", "0x010802")
    for name, value in {
        "model": "Samsung SSD 980 PRO 1TB",
        "serial": "S5GXNF0R123456",
        "firmware_rev": "5B2QGXA7",
        "transport": "pcie",
        "address": "0000:01:00.0",
        "numa_node": "-1",
    }.items():
        write(tree, f"{CTRL}/{name}", value)
    shutil.copytree(tree / REAL_DISK / "queue", tree / NS / "queue")
    write(tree, f"{NS}/size", str(1953525168))
    write(tree, f"{NS}/dev", "259:0")
    write(tree, f"{NS}/queue/rotational", "0")
    write(tree, f"{NS}/queue/scheduler", "[none] mq-deadline kyber bfq")
    write(tree, f"{NS}/queue/wbt_lat_usec", "0")
    write(tree, f"{NS}/nvme0n1p1/partition", "1")
    write(tree, f"{NS}/nvme0n1p1/dev", "259:1")
    link(tree, f"{NS}/device", CTRL)
    link(tree, "sys/block/nvme0n1", NS)
    link(tree, "sys/class/nvme/nvme0", CTRL)
    link(tree, "sys/class/block/nvme0n1p1", f"{NS}/nvme0n1p1")
    link(tree, "sys/dev/block/259:0", NS)
    link(tree, "sys/dev/block/259:1", f"{NS}/nvme0n1p1")
    with mountinfo(tree).open("a") as handle:
        handle.write("60 27 259:1 / /data rw,relatime - ext4 /dev/nvme0n1p1 rw\n")
    set_statvfs(tree, "/data", 1_000_000_000_000, 100_000_000_000)
    set_smart(tree)
    return tree


# Each modelled problem: (rule that must fire, edit, text the evidence or title must show).
def gen3_x2(tree: Path) -> None:
    set_link(tree, ENDPOINT, "8.0 GT/s PCIe", 2, "16.0 GT/s PCIe", 4)


def slot_gen3(tree: Path) -> None:
    """The port above the drive can only do Gen3 (its capability, LnkCap), whatever the drive can."""
    set_link(tree, PORT, "8.0 GT/s PCIe", 4, "8.0 GT/s PCIe", 4)


def wbt_on(tree: Path) -> None:
    write(tree, f"{NS}/queue/wbt_lat_usec", "2000")


def bfq(tree: Path) -> None:
    write(tree, f"{NS}/queue/scheduler", "none mq-deadline kyber [bfq]")


def critical_warning(tree: Path) -> None:
    set_smart(tree, critical_warning=4)


def full_80(tree: Path) -> None:
    set_statvfs(tree, "/data", 1_000_000_000_000, 800_000_000_000)


def strict_iommu(tree: Path) -> None:
    (tree / "sys/class/iommu/ivhd0").mkdir(parents=True)
    write(tree, "sys/kernel/iommu_groups/14/type", "DMA")
    link(tree, f"{ENDPOINT}/iommu_group", "sys/kernel/iommu_groups/14")


def small_readahead(tree: Path) -> None:
    write(tree, f"{NS}/queue/read_ahead_kb", "128")


def hpet_clock(tree: Path) -> None:
    write(tree, "sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet")


CASES = {
    "gen3_x2": (gen3_x2, "PCIE-LINK-DEGRADED", "8.0 GT/s x2"),
    "slot_gen3": (slot_gen3, "PCIE-SLOT-LIMITED", "0000:00:01.1"),
    "wbt_on": (wbt_on, "BLK-WBT", "2000"),
    "bfq": (bfq, "BLK-SCHED", "bfq"),
    "critical_warning": (critical_warning, "NVME-CRITICAL-WARNING", "reliability degraded"),
    "full_80": (full_80, "FS-FULL", "80.0%"),
    "strict_iommu": (strict_iommu, "IOMMU-STRICT", "DMA"),
    "hpet_clock": (hpet_clock, "KERN-CLOCKSOURCE", "hpet"),
}
MODELLED_RULES = {rule_id for _, rule_id, _ in CASES.values()}
