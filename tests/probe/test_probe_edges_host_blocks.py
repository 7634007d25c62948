"""Host and device reads in a fake tree (issue 41: `bench/mutation.py --whole` found these held by no fast
test): the kernel build options the snapshot keeps, NVMe functions bound to a user-space driver, a PCI
function's AER totals, and the blocks sampled from a device to tell written data from zeros."""

from __future__ import annotations

import os
from pathlib import Path

from iolab.probe import Root
from iolab.probe.host import read_host
from iolab.probe.pci import read_port
from iolab.probe.snapshot import sample_blocks


def _write(tree: Path, rel: str, text: str) -> None:
    (tree / rel).parent.mkdir(parents=True, exist_ok=True)
    (tree / rel).write_text(text)


def _link(tree: Path, rel: str, target: str) -> None:
    (tree / rel).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(tree / target, (tree / rel).parent), tree / rel)


def test_the_snapshot_keeps_only_the_debug_and_iommu_build_options_that_are_set(tmp_path):
    _write(tmp_path, "proc/sys/kernel/osrelease", "6.1.0-test\n")
    config = "# comment\nCONFIG_KASAN=y\nCONFIG_LOCKDEP\nCONFIG_IOMMU_DEFAULT_DMA_LAZY=y\nCONFIG_EXT4_FS=m\n"
    _write(tmp_path, "boot/config-6.1.0-test", config)
    host = read_host(Root(tmp_path))
    assert host["kernel_config"] == {"CONFIG_KASAN": "y", "CONFIG_IOMMU_DEFAULT_DMA_LAZY": "y"}
    _write(tmp_path, "proc/sys/kernel/osrelease", "6.2.0-other\n")  # no config installed for this kernel
    assert read_host(Root(tmp_path))["kernel_config"] == {}


def test_only_nvme_functions_bound_to_a_user_space_driver_are_named(tmp_path):
    functions = {"0000:01:00.0": ("0x010802", "vfio-pci"), "0000:02:00.0": ("0x010802", "nvme")}
    functions["0000:03:00.0"] = ("0x020000", "vfio-pci")  # a network card given to a VM
    for address, (pci_class, driver) in functions.items():
        _write(tmp_path, f"sys/bus/pci/devices/{address}/class", pci_class + "\n")
        (tmp_path / "sys/bus/pci/drivers" / driver).mkdir(parents=True, exist_ok=True)
        _link(tmp_path, f"sys/bus/pci/devices/{address}/driver", f"sys/bus/pci/drivers/{driver}")
    assert read_host(Root(tmp_path))["userspace_nvme"] == {"0000:01:00.0": "vfio-pci"}


def test_a_functions_aer_totals_are_read_from_their_total_lines(tmp_path):
    port = "sys/devices/pci0000:00/0000:00:01.1"
    _write(tmp_path, f"{port}/aer_dev_fatal", "Undefined 0\nTOTAL_ERR_FATAL 0\n")
    _write(tmp_path, f"{port}/aer_dev_nonfatal", "CmpltTO 2\nTOTAL_ERR_NONFATAL 12\n")
    _write(tmp_path, f"{port}/aer_dev_correctable", "RxErr 1\nTOTAL_ERR_COR x\n")
    read = read_port(Root(tmp_path), f"/{port}")
    assert (read.address, read.aer_fatal, read.aer_nonfatal, read.aer_correctable) == ("0000:00:01.1", 0, 12, None)
    assert read_port(Root(tmp_path), "/sys/devices/pci0000:00/0000:00:02.0/").aer_fatal is None


def test_64_blocks_are_sampled_evenly_and_those_holding_anything_but_zeros_counted(tmp_path):
    device = tmp_path / "disk.img"
    blocks = 256  # sampled every 4th block
    with open(device, "wb") as out:
        out.truncate(blocks * 4096)
        for block in range(0, 128, 4):  # the first half of the sampled blocks hold data
            out.seek(block * 4096 + 4095)
            out.write(b"\x01")
    assert sample_blocks(str(device)) == (64, 32)


def test_a_device_of_fewer_blocks_than_samples_is_read_once_a_block_and_an_empty_one_not_at_all(tmp_path):
    small = tmp_path / "small.img"
    small.write_bytes(b"\x07" * 4096 * 10)
    assert sample_blocks(str(small)) == (10, 10)
    (tmp_path / "empty.img").write_bytes(b"")
    assert sample_blocks(str(tmp_path / "empty.img")) == (None, None)
    assert sample_blocks(str(tmp_path / "missing.img")) == (None, None)
