"""Never destroy data: refusals on real loop devices, checked by the data's checksum."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import in_process
from tests.iolab_cli import assert_clean_error, iolab
from tests.loopdev import loop_devices, loop_skip_reason

pytestmark = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
FAST = ["--runtime", "1", "--ramp", "0"]


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def ext4_loop():
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("mkfs.ext4 is not installed")
    with loop_devices(1) as (dev,):
        subprocess.run(["mkfs.ext4", "-q", "-F", dev.path], check=True)
        subprocess.run(["sync"], check=True)
        yield dev.path, Path(dev.backing)


def test_allow_write_refuses_a_device_holding_ext4(ext4_loop):
    dev, backing = ext4_loop
    before = _digest(backing)
    err = assert_clean_error(iolab("run", "--allow-write", dev, *FAST))
    assert f"refusing to write to {dev}" in err and "ext4" in err
    assert _digest(backing) == before
    assert json.loads(in_process.iolab("ls", "--json").stdout) == []  # refused before any run was recorded


def test_allow_write_refuses_a_mounted_device(ext4_loop, tmp_path):
    dev, backing = ext4_loop
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    # read-only, so the file system itself writes nothing (a read-write ext4 initialises its inode tables
    # and commits its journal in the background, which changed the checksum under load): every change
    # the checksum could see would be iolab's
    subprocess.run(["mount", "-o", "ro,noload", dev, str(mnt)], check=True)
    try:
        before = _digest(backing)
        err = assert_clean_error(iolab("run", "--allow-write", dev, *FAST))
        assert f"mounted at {mnt}" in err
        assert _digest(backing) == before
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def _write_mbr(path, size: int) -> None:
    """A DOS partition table with one Linux partition from 1 MiB to the end."""
    import struct

    entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 2048, size // 512 - 2048)
    with open(path, "r+b") as f:
        f.seek(446)
        f.write(entry)
        f.seek(510)
        f.write(b"\x55\xaa")


def test_allow_write_refuses_a_partitioned_device(tmp_path):
    backing, size = tmp_path / "parted.img", 64 << 20
    with open(backing, "wb") as f:
        f.truncate(size)
    _write_mbr(backing, size)
    proc = subprocess.run(
        ["losetup", "--find", "--show", "--partscan", str(backing)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot attach a loop device: {proc.stderr.strip()}")
    dev = proc.stdout.strip()
    try:
        before = _digest(backing)
        err = assert_clean_error(iolab("run", "--allow-write", dev, *FAST))
        assert "dos partition table" in err
        assert _digest(backing) == before
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)


def test_blank_device_is_read_only_without_allow_write():
    with loop_devices(1) as (dev,):
        proc = iolab("run", dev.path, *FAST, "--json")
        assert proc.returncode == 0, proc.stderr
        assert "skipped seqwrite-1m-qd32, randwrite-4k-qd32-j4 (writes need --allow-write)" in proc.stderr
        points = json.loads(proc.stdout)["points"]
        assert [p["name"] for p in points] == ["seqread-1m-qd32", "randread-4k-qd32-j4", "randread-4k-qd1"]
        assert all(p["status"] == "ok" for p in points)


def test_blank_device_with_allow_write_runs_every_point():
    with loop_devices(1) as (dev,):
        proc = iolab("run", "--allow-write", dev.path, *FAST, "--json")
        assert proc.returncode == 0, proc.stderr
        points = json.loads(proc.stdout)["points"]
        assert [p["status"] for p in points] == ["ok"] * 5
        assert points[1]["result"]["directions"]["write"]["bw_bytes"] > 0
