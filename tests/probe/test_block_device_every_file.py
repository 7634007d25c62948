"""A block device read from a fake sysfs whose every file holds a distinct value, and each file's fallback
(issue 41: the probe's block reader was held by captured trees of one virtio disk and one modelled NVMe
drive, where most files agree or are absent, so a field read from the wrong file, a fallback never taken,
or a multipath namespace's controller were held by none)."""

from __future__ import annotations

import os
from pathlib import Path

from iolab.probe.block import device_for_major_minor, list_disks, read_device
from iolab.probe.root import Root


def _write(tree: Path, rel: str, text: str) -> None:
    (tree / rel).parent.mkdir(parents=True, exist_ok=True)
    (tree / rel).write_text(text + "\n")


def _link(tree: Path, rel: str, target: str) -> None:
    (tree / rel).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(tree / target, (tree / rel).parent), tree / rel)


DEV = "sys/devices/pci0000:00/0000:00:03.0/host0/target0:0:0/0:0:0:0/block/sdb"


def _disk(tree: Path) -> None:
    files = {
        "dev": "8:16",
        "size": "2000",
        "device/model": "SSD 870",
        "serial": "S1",
        "device/rev": "FW1",
        "device/numa_node": "1",
        "queue/rotational": "0",
        "queue/scheduler": "none [mq-deadline] kyber",
        "queue/wbt_lat_usec": "2000",
        "queue/read_ahead_kb": "4096",
        "queue/nr_requests": "64",
        "queue/max_sectors_kb": "1280",
        "queue/discard_max_bytes": "2147450880",
        "dm/uuid": "CRYPT-LUKS2-x",
        "md/level": "raid6",
        "md/sync_action": "check",
        "md/stripe_cache_size": "512",
        "sdb1/partition": "1",
        "sdb2/partition": "2",
    }
    for rel, text in files.items():
        _write(tree, f"{DEV}/{rel}", text)
    (tree / DEV / "sdbx").mkdir()  # an entry named like a partition that is not one
    (tree / DEV / "holders" / "dm-0").mkdir(parents=True)
    (tree / DEV / "slaves" / "sdc").mkdir(parents=True)
    _link(tree, "sys/block/sdb", DEV)


def test_every_file_of_a_disk_is_read_into_its_own_field(tmp_path):
    _disk(tmp_path)
    d = read_device(Root(tmp_path), "sdb")
    assert (d.name, d.major_minor, d.size_bytes, d.model, d.serial, d.firmware) == (
        "sdb",
        "8:16",
        1_024_000,
        "SSD 870",
        "S1",
        "FW1",
    )
    assert (d.rotational, d.scheduler, d.schedulers) == (False, "mq-deadline", ["none", "mq-deadline", "kyber"])
    assert (d.wbt_lat_usec, d.read_ahead_kb, d.nr_requests, d.max_sectors_kb) == (2000, 4096, 64, 1280)
    assert (d.discard_max_bytes, d.numa_node, d.holders, d.slaves) == (2147450880, 1, ["dm-0"], ["sdc"])
    assert (d.partitions, d.dm_uuid, d.md_level, d.md_sync_action, d.md_stripe_cache_size) == (
        ["sdb1", "sdb2"],
        "CRYPT-LUKS2-x",
        "raid6",
        "check",
        512,
    )
    assert d.sysfs_path == "/" + DEV and (d.nvme_controller, d.transport, d.smart, d.smart_error) == (
        None,
        None,
        None,
        None,
    )
    assert d.host_settings["scheduler"] == "mq-deadline" and d.host_settings["nr_requests"] == "64"


def test_the_serial_and_firmware_fall_back_to_the_device_directory_and_a_spinning_disk_says_so(tmp_path):
    _disk(tmp_path)
    (tmp_path / DEV / "serial").unlink()
    (tmp_path / DEV / "device/rev").unlink()
    _write(tmp_path, f"{DEV}/device/serial", "S2")
    _write(tmp_path, f"{DEV}/device/firmware_rev", "FW2")
    _write(tmp_path, f"{DEV}/queue/rotational", "1")
    d = read_device(Root(tmp_path), "sdb")
    assert (d.serial, d.firmware, d.rotational) == ("S2", "FW2", True)


def test_an_nvme_namespace_takes_its_controllers_identity_and_node_also_under_native_multipath(tmp_path):
    ctrl = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme3"
    for rel, text in {
        "model": "PM1733",
        "serial": "C9",
        "firmware_rev": "GDC",
        "transport": "pcie",
        "numa_node": "0",
    }.items():
        _write(tmp_path, f"{ctrl}/{rel}", text)
    _link(tmp_path, "sys/class/nvme/nvme3", ctrl)
    sub = "sys/devices/virtual/nvme-subsystem/nvme-subsys0"
    _write(tmp_path, f"{sub}/nvme3n1/size", "8")
    (tmp_path / sub / "nvme2").mkdir()
    (tmp_path / sub / "nvme3").mkdir()  # two controllers: the first listed serves
    _link(tmp_path, "sys/block/nvme3n1", f"{sub}/nvme3n1")
    _link(tmp_path, "sys/class/nvme/nvme2", ctrl)
    d = read_device(Root(tmp_path), "nvme3n1", with_smart=False)
    assert (d.nvme_controller, d.model, d.serial, d.firmware, d.transport, d.numa_node) == (
        "nvme2",
        "PM1733",
        "C9",
        "GDC",
        "pcie",
        0,
    )
    assert d.pcie is not None and d.pcie.address == "0000:01:00.0"


def test_only_disks_worth_diagnosing_are_listed(tmp_path):
    for name, size in {
        "sda": "8",
        "ram0": "8",
        "fd0": "8",
        "sr0": "8",
        "loop0": "0",
        "loop1": "16",
        "zram0": "",
        "zram1": "4",
        "ramdisk": "8",
    }.items():
        _write(tmp_path, f"sys/block/{name}/size", size)
    assert list_disks(Root(tmp_path)) == ["loop1", "ramdisk", "sda", "zram1"]


def test_a_partitions_numbers_map_to_its_whole_disk(tmp_path):
    _disk(tmp_path)
    _link(tmp_path, "sys/dev/block/8:17", f"{DEV}/sdb1")
    _link(tmp_path, "sys/dev/block/8:16", DEV)
    assert device_for_major_minor(Root(tmp_path), "8:17") == "sdb"
    assert device_for_major_minor(Root(tmp_path), "8:16") == "sdb"
    assert device_for_major_minor(Root(tmp_path), "9:9") is None
