"""Block devices: identity, queue settings, stacking and the bus they hang on."""

from __future__ import annotations

import re
from typing import Any

from iolab.models.host_settings import HOST_SETTINGS, host_setting, whole
from iolab.models.snapshot import BlockDevice, NvmeSmart
from iolab.probe.nvme import read_smart
from iolab.probe.pci import pci_chain
from iolab.probe.root import Root

# Devices that are never storage worth diagnosing on their own.
_SKIP = re.compile(r"^(ram\d+|fd\d+|sr\d+)$")
_NVME_CTRL = re.compile(r"^nvme\d+$")


def list_disks(root: Root) -> list[str]:
    """Whole disks under /sys/block, leaving out RAM disks and unused loop/zram devices."""
    names = []
    for name in root.listdir("/sys/block"):
        if _SKIP.match(name):
            continue
        if name.startswith(("loop", "zram")) and not root.read_int(f"/sys/block/{name}/size"):
            continue
        names.append(name)
    return names


def _nvme_controller(root: Root, name: str, sysfs_path: str) -> str | None:
    """The controller (nvme0) behind a namespace, also under native multipath."""
    if not name.startswith("nvme"):
        return None
    linked = root.link_name(f"/sys/block/{name}/device")
    if linked and _NVME_CTRL.match(linked):
        return linked
    if "/nvme-subsystem/" in sysfs_path:
        subsystem = sysfs_path.rsplit("/", 1)[0]
        controllers = [e for e in root.listdir(subsystem) if _NVME_CTRL.match(e)]
        return controllers[0] if controllers else None
    return None


def queue_settings(root: Root, device: str) -> tuple[dict[str, str], list[str]]:
    """The value in force of each block-queue setting in `models.host_settings`, by name, each file read once;
    and the schedulers the device offers (listed in the same file as the one in force)."""
    texts = {s.name: root.read_value(s.path(device)) for s in HOST_SETTINGS if not s.per_cpu_policy}
    settings = {name: value for name, text in texts.items() if (value := host_setting(name).current(text)) is not None}
    return settings, host_setting("scheduler").offered(texts.get("scheduler"))


def _identity(root: Root, base: str, controller: str | None) -> dict[str, Any]:
    """Model, serial, firmware, transport and NUMA node: the disk's own, its NVMe controller's where it has one."""
    found: dict[str, Any] = {
        "model": root.read_value(f"{base}/device/model"),
        "serial": root.read_value(f"{base}/serial") or root.read_value(f"{base}/device/serial"),
        "firmware": root.read_value(f"{base}/device/rev") or root.read_value(f"{base}/device/firmware_rev"),
        "transport": None,
        "numa_node": root.read_int(f"{base}/device/numa_node"),
    }
    if controller:
        ctrl = f"/sys/class/nvme/{controller}"
        own = {key: root.read_value(f"{ctrl}/{file}") for key, file in _CONTROLLER_FILES}
        found.update({key: value for key, value in own.items() if value})
        found["transport"] = root.read_value(f"{ctrl}/transport")
        if found["numa_node"] is None:
            found["numa_node"] = root.read_int(f"{ctrl}/numa_node")
    return found


def _partitions(root: Root, name: str) -> list[str]:
    """The disk's partitions (sda1, nvme0n1p2): the entries of its directory that are one."""
    base = f"/sys/block/{name}"
    return [e for e in root.listdir(base) if e.startswith(name) and root.exists(f"{base}/{e}/partition")]


def _smart(root: Root, controller: str | None, transport: str | None) -> tuple[NvmeSmart | None, str]:
    """The SMART log of a PCIe NVMe controller ((None, "") for none: a fabrics controller's log is its
    target's, not a drive's), or (None, why it could not be read)."""
    if controller is None or transport not in (None, "pcie"):
        return None, ""
    return read_smart(root, controller)


_CONTROLLER_FILES = (("model", "model"), ("serial", "serial"), ("firmware", "firmware_rev"))


def read_device(root: Root, name: str, with_smart: bool = True) -> BlockDevice:
    """Everything iolab reads about one whole disk (catalogue D1-D3, B6)."""
    base = f"/sys/block/{name}"
    queue = f"{base}/queue"
    sysfs_path = root.realpath(base)
    settings, schedulers = queue_settings(root, name)
    rotational = root.read_int(f"{queue}/rotational")
    sectors = root.read_int(f"{base}/size")
    controller = _nvme_controller(root, name, sysfs_path)
    identity = _identity(root, base, controller)
    numa_node, transport = identity.pop("numa_node"), identity["transport"]
    pci_path = root.realpath(f"/sys/class/nvme/{controller}") if controller else sysfs_path
    endpoint, upstream = pci_chain(root, pci_path)
    if numa_node is None and endpoint is not None:  # the node of the PCIe function the disk hangs on
        numa_node = root.read_int(f"{pci_path.split(endpoint.address)[0]}{endpoint.address}/numa_node")
    smart, smart_error = _smart(root, controller if with_smart else None, transport)
    return BlockDevice(
        name=name,
        major_minor=root.read_value(f"{base}/dev"),
        **identity,
        size_bytes=sectors * 512 if sectors is not None else None,
        rotational=bool(rotational) if rotational is not None else None,
        # the typed fields are the settings' values as read once above (`queue_settings`), for tables and diffs
        scheduler=settings.get("scheduler"),
        schedulers=schedulers,
        wbt_lat_usec=whole(settings.get("wbt_lat_usec")),
        read_ahead_kb=whole(settings.get("read_ahead_kb")),
        nr_requests=whole(settings.get("nr_requests")),
        max_sectors_kb=root.read_int(f"{queue}/max_sectors_kb"),
        host_settings=settings,
        discard_max_bytes=root.read_int(f"{queue}/discard_max_bytes"),
        numa_node=numa_node,
        holders=root.listdir(f"{base}/holders"),
        slaves=root.listdir(f"{base}/slaves"),
        partitions=_partitions(root, name),
        sysfs_path=sysfs_path,
        dm_uuid=root.read_value(f"{base}/dm/uuid"),
        md_level=root.read_value(f"{base}/md/level"),
        md_sync_action=root.read_value(f"{base}/md/sync_action"),
        md_stripe_cache_size=root.read_int(f"{base}/md/stripe_cache_size"),
        nvme_controller=controller,
        pcie=endpoint,
        upstream=upstream,
        smart=smart,
        smart_error=smart_error or None,
    )


def device_for_major_minor(root: Root, major_minor: str) -> str | None:
    """The whole disk holding device `major:minor` (a partition maps to its disk)."""
    link = f"/sys/dev/block/{major_minor}"
    if not root.exists(link):
        return None
    path = root.realpath(link)
    if root.exists(f"{path}/partition"):
        path = path.rsplit("/", 1)[0]
    return path.rsplit("/", 1)[-1]
