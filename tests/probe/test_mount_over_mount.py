"""A mount point mounted over (two lines of one mount point in mountinfo, as `mount` on a busy point makes) is
reached through the later mount, the one that hides the other: a path there is on it. No fast test had an
over-mount (fresh seed 84263 found `>=` turned `>` survived, which gave the hidden, earlier mount)."""

from __future__ import annotations

from pathlib import Path

from iolab.probe.fs import mount_of
from iolab.probe.root import Root

MOUNTINFO = """\
20 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw
30 20 8:16 / /mnt/iolab-over rw,relatime - ext4 /dev/sdb rw
31 30 0:50 / /mnt/iolab-over rw,relatime - tmpfs tmpfs rw,size=1024k
"""


def test_a_path_under_a_mount_point_mounted_over_is_on_the_later_mount(tmp_path: Path):
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/mountinfo").write_text(MOUNTINFO)
    found = mount_of("/mnt/iolab-over/data/f", Root(tmp_path))
    assert found is not None and (found.fs_type, found.source) == ("tmpfs", "tmpfs")
    assert mount_of("/srv/f", Root(tmp_path)).source == "/dev/sda1"  # type: ignore[union-attr]
