"""A target whose data is in RAM says so: tmpfs, zram, and a loop device whose backing file is in RAM."""

from __future__ import annotations

from pathlib import Path

from iolab.models.snapshot import RAM_FILESYSTEMS
from iolab.probe import Root
from iolab.probe.fs import ram_backed_device

MOUNTINFO = """\
1 0 252:1 / / rw,relatime - ext4 /dev/vda rw
22 1 0:21 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw
30 1 7:7 / /mnt/lab rw,relatime - ext4 /dev/loop7 rw
31 1 7:8 / /mnt/disk rw,relatime - ext4 /dev/loop8 rw
"""


def _root(tmp_path: Path) -> Root:
    (tmp_path / "proc" / "self").mkdir(parents=True)
    (tmp_path / "proc" / "self" / "mountinfo").write_text(MOUNTINFO)
    for name, backing in (("loop7", "/dev/shm/lab.img"), ("loop8", "/var/lib/disk.img"), ("loop9", "/mnt/lab/in.img")):
        (tmp_path / "sys" / "block" / name / "loop").mkdir(parents=True)
        (tmp_path / "sys" / "block" / name / "loop" / "backing_file").write_text(backing + "\n")
    return Root(str(tmp_path))


def test_a_loop_device_over_a_file_in_ram_is_ram_backed_and_one_over_a_disk_is_not(tmp_path):
    """The suite's own loop devices sit on /dev/shm: an ext4 on one measures memory, not storage."""
    root = _root(tmp_path)
    assert ram_backed_device("loop7", root, RAM_FILESYSTEMS)  # backing file on tmpfs
    assert not ram_backed_device("loop8", root, RAM_FILESYSTEMS)  # backing file on the disk
    assert ram_backed_device("loop9", root, RAM_FILESYSTEMS)  # on the ext4 of loop7, itself in RAM
    assert ram_backed_device("zram0", root, RAM_FILESYSTEMS) and not ram_backed_device("vda", root, RAM_FILESYSTEMS)
