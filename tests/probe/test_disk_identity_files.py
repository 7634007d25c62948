"""A disk's serial and firmware are read wherever the kernel puts them (probe.block.read_device): an NVMe
namespace or virtio disk has `serial` beside it, a SCSI/SATA disk only `device/serial` (and `device/rev`
where NVMe has `device/firmware_rev`). Over captured /sys trees holding one or the other."""

from __future__ import annotations

import pytest

from iolab.probe.block import read_device
from iolab.probe.root import Root


@pytest.mark.parametrize(
    ("files", "serial", "firmware"),
    [
        ({"serial": "S1", "device/firmware_rev": "F1"}, "S1", "F1"),  # NVMe-like: beside the disk
        ({"device/serial": "S2", "device/rev": "R2"}, "S2", "R2"),  # SCSI-like: under device/
        ({"serial": "S3", "device/serial": "other", "device/rev": "R3", "device/firmware_rev": "x"}, "S3", "R3"),
        ({}, None, None),
    ],
)
def test_serial_and_firmware_are_read_from_whichever_file_the_disk_has(tmp_path, files, serial, firmware):
    base = tmp_path / "sys/block/sdq"
    (base / "device").mkdir(parents=True)
    (base / "size").write_text("2048\n")
    for name, value in files.items():
        (base / name).write_text(value + "\n")
    device = read_device(Root(tmp_path), "sdq", with_smart=False)
    assert (device.serial, device.firmware, device.size_bytes) == (serial, firmware, 2048 * 512)
