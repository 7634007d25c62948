"""Probe edges that `bench/mutation.py --whole` found no fast test holding (issue 41 item 8)."""

from __future__ import annotations

from iolab.models.snapshot import RAM_FILESYSTEMS
from iolab.probe import Root
from iolab.probe.fs import ram_backed_device


def test_a_disk_that_is_no_loop_device_is_not_ram_backed_even_on_a_host_whose_root_is_tmpfs(tmp_path):
    """A live-CD or container host mounts / on tmpfs: its disks are still disks (no backing file to follow)."""
    (tmp_path / "proc" / "self").mkdir(parents=True)
    (tmp_path / "proc" / "self" / "mountinfo").write_text(
        "1 0 0:1 / / rw - tmpfs tmpfs rw\n30 1 8:1 / /data rw,relatime - ext4 /dev/sda1 rw\n"
    )
    (tmp_path / "sys" / "block" / "loop3" / "loop").mkdir(parents=True)
    (tmp_path / "sys" / "block" / "loop3" / "loop" / "backing_file").write_text("/images/a.img\n")
    root = Root(str(tmp_path))
    assert not ram_backed_device("sda", root, RAM_FILESYSTEMS)
    assert ram_backed_device("loop3", root, RAM_FILESYSTEMS)  # its file is on the tmpfs root
