"""The device-stack resolver on real stacks: loop devices at an offset, a partition table, ext4 mounted on a
stacked device, a bind mount of it, and a loop device over a file on the disk."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from iolab.probe import device_stack
from iolab.probe.root import Root
from iolab.runner.safety import write_refusals
from tests.loopdev import loop_devices, loop_skip_reason

pytestmark = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))


@contextmanager
def losetup(*args: str) -> Iterator[str]:
    """A loop device made by `losetup -f --show ARGS`, detached on exit."""
    path = subprocess.run(["losetup", "-f", "--show", *args], check=True, capture_output=True, text=True).stdout
    try:
        yield path.strip()
    finally:
        subprocess.run(["losetup", "-d", path.strip()], check=False)


@contextmanager
def mounted(device: str, where: Path, *options: str) -> Iterator[Path]:
    where.mkdir(exist_ok=True)
    subprocess.run(["mount", *options, device, str(where)], check=True, capture_output=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def test_a_loop_device_at_an_offset_and_its_mount_are_seen_from_below(tmp_path):
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 is not installed")
    with loop_devices(1, size_mib=256) as (dev,), losetup("-o", "64M", "--sizelimit", "128M", dev.path) as inner:
        name = os.path.basename(inner)
        assert [(a.kind, a.name, a.detail) for a in device_stack.above(dev.name)] == [("loop", name, str(64 << 20))]
        subprocess.run(["mkfs.ext4", "-q", inner], check=True)
        with mounted(inner, tmp_path / "m") as mount:
            said = device_stack.state([dev.name])
            assert said == {f"{name} is backed by it (at offset 67108864)", f"{name} is mounted at {mount}"}
            refusals = write_refusals(dev.path)
            assert f"{name} is backed by it (at offset 67108864)" in refusals
            assert f"{name} is mounted at {mount}" in refusals
            # downwards: a file on the stacked file system, directly and through a bind mount, is on dev
            (mount / "sub").mkdir()
            (mount / "sub" / "f").write_bytes(b"x")
            assert device_stack.beneath_path(str(mount / "sub" / "f")) == [dev.name]
            with mounted(str(mount / "sub"), tmp_path / "bound", "--bind") as bound:
                assert device_stack.beneath_path(str(bound / "f")) == [dev.name]


def _mbr_with_one_partition(path: str, size_mib: int) -> None:
    """A DOS partition table with one Linux partition from 1 MiB to the end, written byte by byte."""
    start, sectors = 2048, (size_mib << 11) - 2048
    entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", start, sectors)
    with open(path, "r+b") as disk:
        disk.seek(446)
        disk.write(entry + b"\0" * 48 + b"\x55\xaa")


def test_a_partition_is_seen_from_its_disk_and_maps_down_to_it(tmp_path):
    image = tmp_path / "disk.img"
    with open(image, "wb") as f:
        f.truncate(16 << 20)
    _mbr_with_one_partition(str(image), 16)
    with losetup("-P", str(image)) as disk:
        name = os.path.basename(disk)
        if not device_stack.partitions_of(name, Root()):
            pytest.skip("this kernel made no partition of a valid DOS partition table (no partition parser)")
        assert [(a.kind, a.name) for a in device_stack.above(name)] == [("partition", f"{name}p1")]
        assert device_stack.beneath(f"{name}p1") == [name]


def test_a_loop_device_over_a_file_maps_down_to_the_file_s_disk(tmp_path):
    disks = device_stack.beneath_path(str(tmp_path))
    if not disks:
        pytest.skip(f"{tmp_path} is on no block device")
    image = tmp_path / "disk.img"
    with open(image, "wb") as f:
        f.truncate(8 << 20)
    with losetup(str(image)) as loop:
        assert device_stack.beneath(os.path.basename(loop)) == disks
        assert device_stack.beneath_path(loop) == disks
