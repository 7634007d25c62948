"""PCIe links: from a device's sysfs path to its endpoint and the bridges above it.

sysfs names a PCI function by its address (`0000:41:00.0`); a device's
resolved path lists every function from the root port down to the endpoint,
so the chain is read from the path itself (catalogue procedure D1).
"""

from __future__ import annotations

import re

from iolab.models.snapshot import PciPort
from iolab.probe.root import Root

BDF = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


def parse_link_speed(text: str | None) -> float | None:
    """GT/s from `16.0 GT/s PCIe` (new kernels) or `8 GT/s` (old); None for Unknown."""
    if not text:
        return None
    match = re.match(r"\s*([0-9.]+)\s*GT/s", text)
    return float(match.group(1)) if match else None


def _aer_total(root: Root, path: str) -> int | None:
    """The TOTAL_ERR_* line of an aer_dev_* table, or None where AER is absent."""
    text = root.read_text(path)
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith("TOTAL_ERR"):
            try:
                return int(line.split()[-1])
            except ValueError:
                return None
    return None


def read_port(root: Root, sysfs_dir: str) -> PciPort:
    """Link, AER, driver and IOMMU group of the PCI function at `sysfs_dir`."""
    group = root.link_name(f"{sysfs_dir}/iommu_group")
    return PciPort(
        address=sysfs_dir.rstrip("/").rsplit("/", 1)[-1],
        current_gts=parse_link_speed(root.read_value(f"{sysfs_dir}/current_link_speed")),
        max_gts=parse_link_speed(root.read_value(f"{sysfs_dir}/max_link_speed")),
        current_width=root.read_int(f"{sysfs_dir}/current_link_width"),
        max_width=root.read_int(f"{sysfs_dir}/max_link_width"),
        aer_fatal=_aer_total(root, f"{sysfs_dir}/aer_dev_fatal"),
        aer_nonfatal=_aer_total(root, f"{sysfs_dir}/aer_dev_nonfatal"),
        aer_correctable=_aer_total(root, f"{sysfs_dir}/aer_dev_correctable"),
        driver=root.link_name(f"{sysfs_dir}/driver"),
        iommu_group=group,
        iommu_type=root.read_value(f"/sys/kernel/iommu_groups/{group}/type") if group else None,
    )


def pci_chain(root: Root, sysfs_path: str) -> tuple[PciPort | None, list[PciPort]]:
    """(endpoint, upstream ports nearest first) for a resolved sysfs device path."""
    parts = sysfs_path.strip("/").split("/")
    dirs = ["/" + "/".join(parts[: i + 1]) for i, part in enumerate(parts) if BDF.match(part)]
    if not dirs:
        return None, []
    ports = [read_port(root, d) for d in dirs]
    return ports[-1], list(reversed(ports[:-1]))
