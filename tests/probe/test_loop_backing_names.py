"""A loop device in a captured tree is over a device only when its backing file is that device's node under
/dev: a file that merely carries a device's name (/srv/m1/sdb) sits on its mount's device, and a file under
/dev that names no device (/dev/shm/disk.img) is no device node. The write guard asks `above` what sits on a
device: a wrong answer refuses the wrong disk (or lets the right one through)."""

from __future__ import annotations

from iolab.probe import device_stack
from tests.probe.test_device_stack import FakeHost


def _host(tmp_path, backing_file: str) -> FakeHost:
    host = FakeHost(tmp_path)
    host.disk("sda")
    host.disk("sdb")
    host.mount("sda", "/srv/m1")
    host.file_loop("loop0", "/srv/m1")
    (tmp_path / "sys/block/loop0/loop/backing_file").write_text(backing_file + "\n")
    return host


def test_a_file_named_like_a_disk_backs_a_loop_on_its_mount_s_device_not_on_that_disk(tmp_path):
    root = _host(tmp_path, "/srv/m1/sdb").write_proc()
    assert device_stack.backing("loop0", root) == ("/srv/m1/sdb", "sda", False)
    assert device_stack.above("sdb", root) == []  # nothing sits on sdb: it may be written
    assert device_stack.beneath("loop0", root) == ["sda"]


def test_a_file_under_dev_that_names_no_device_is_no_device_node(tmp_path):
    root = _host(tmp_path, "/dev/shm/disk.img").write_proc()
    assert device_stack.backing("loop0", root)[2] is False


def test_a_device_node_backs_its_loop_directly(tmp_path):
    root = _host(tmp_path, "/dev/sdb").write_proc()
    assert device_stack.backing("loop0", root) == ("/dev/sdb", "sdb", True)
    assert [a.describe("sdb") for a in device_stack.above("sdb", root)] == ["loop0 is backed by it (at offset 0)"]
