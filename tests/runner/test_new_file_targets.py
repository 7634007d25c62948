"""A file a job names that does not exist yet: made only in a directory the user can write, never under /dev,
/proc or /sys, only with a size that fits; and the target's other refusals, each in words a user can act on."""

from __future__ import annotations

import os

import pytest

from iolab.errors import UserError
from iolab.probe.root import Root
from iolab.runner.targets import _block_target, resolve_target


def test_a_job_s_new_file_is_made_in_a_directory_with_room_and_recorded_as_iolab_s(tmp_path):
    target = resolve_target(str(tmp_path / "new.dat"), size=1 << 20, create=True)
    assert (target.kind, target.scratch, target.writable, target.size_bytes) == ("file", True, True, 1 << 20)
    assert target.filename == str(tmp_path / "new.dat") and target.direct and not target.ram_backed
    assert resolve_target(str(tmp_path / "new2.dat"), size=1 << 30, scratch=1 << 20, create=True).size_bytes == 1 << 20


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("/proc/iolab-new.dat", "/proc/iolab-new.dat: no such file or device; iolab makes no new files under /proc"),
        (
            "/sys/kernel/iolab.dat",
            "/sys/kernel/iolab.dat: no such file or device; iolab makes no new files under /sys/kernel",
        ),
        ("/dev/nvme9n9", "/dev/nvme9n9: no such file or device; iolab makes no new files under /dev"),
    ],
)
def test_no_file_is_made_where_the_kernel_s_files_are(where, said):
    with pytest.raises(UserError) as refused:
        resolve_target(where, size=1 << 20, create=True)
    assert str(refused.value) == said


def test_a_new_file_needs_its_directory_a_size_and_room(tmp_path):
    with pytest.raises(
        UserError, match=f"^{tmp_path}/no/x.dat: no such file, and its directory {tmp_path}/no does not exist"
    ):
        resolve_target(str(tmp_path / "no" / "x.dat"), size=1 << 20, create=True)
    with pytest.raises(UserError, match="does not exist: give the job a size= \\(or --size\\) so a file"):
        resolve_target(str(tmp_path / "x.dat"), create=True)
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    with pytest.raises(UserError, match=f"^{tmp_path} has [0-9.]+ GiB free, too little for a [0-9.]+ GiB file"):
        resolve_target(str(tmp_path / "x.dat"), size=int(free * 0.95), create=True)
    with pytest.raises(UserError, match=f"^{tmp_path}/x.dat: no such file, directory or device"):
        resolve_target(str(tmp_path / "x.dat"), size=1 << 20)  # named on the command line: a typo is no file
    (tmp_path / "link.dat").symlink_to(tmp_path / "nowhere")
    with pytest.raises(UserError, match="no such file, directory or device"):
        resolve_target(str(tmp_path / "link.dat"), size=1 << 20, create=True)  # a dangling link is not followed
    with pytest.raises(UserError, match="^an empty target"):
        resolve_target("", size=1)


def test_a_device_the_kernel_gives_no_size_is_refused_and_a_size_is_capped_at_the_device_s(tmp_path):
    node = tmp_path / "loopx"
    node.write_bytes(b"")
    sizes = tmp_path / "sys/class/block/loopx"
    sizes.mkdir(parents=True)
    (sizes / "size").write_text("0\n")
    with pytest.raises(UserError, match="the kernel reports no size for this device"):
        _block_target(node, None, Root(tmp_path))
    (sizes / "size").write_text("2048\n")  # sectors of 512 bytes: 1 MiB
    device = _block_target(node, 4 << 20, Root(tmp_path))
    assert (device.kind, device.size_bytes, device.filename, device.direct) == ("block", 1 << 20, str(node), True)
    assert _block_target(node, 4096, Root(tmp_path)).size_bytes == 4096
    assert _block_target(node, None, Root(tmp_path)).size_bytes == 1 << 20
