"""Mount points and sources as mountinfo writes them (probe.fs.read_mounts, mount_of): a space, tab, newline or
backslash is escaped as octal (\\040), any other byte written as it is, UTF-8 included; a target under a mount
point with a space is found on that mount, and a name with accents and a space reads as it is on disk."""

from __future__ import annotations

from pathlib import Path

from iolab.probe.fs import mount_of, read_mounts
from iolab.probe.root import Root

LINES = [
    r"20 1 8:1 / / rw - ext4 /dev/sda1 rw",
    r"21 20 8:17 / /mnt/my\040disk rw - xfs /dev/sdb1 rw",
    r"22 20 8:33 / /mnt/données\040x rw - ext4 /dev/sdc1 rw",
    r"23 20 0:40 / /mnt/a\134b\011c rw - nfs4 srv:/exp\040ort rw",
]


def _root(tmp_path: Path) -> Root:
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/mountinfo").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return Root(tmp_path)


def test_escaped_names_read_as_they_are_on_disk(tmp_path):
    mounts = {m.mount_point: m for m in read_mounts(_root(tmp_path))}
    assert set(mounts) == {"/", "/mnt/my disk", "/mnt/données x", "/mnt/a\\b\tc"}
    assert mounts["/mnt/a\\b\tc"].source == "srv:/exp ort"
    assert mounts["/mnt/données x"].source == "/dev/sdc1"


def test_a_target_under_a_mount_point_with_a_space_is_on_that_mount(tmp_path):
    root = _root(tmp_path)
    found = mount_of("/mnt/my disk/fio/data", root)
    assert found is not None and (found.mount_point, found.source, found.fs_type) == (
        "/mnt/my disk",
        "/dev/sdb1",
        "xfs",
    )
    found = mount_of("/mnt/my/data", root)  # not the mount of "/mnt/my disk"
    assert found is not None and found.mount_point == "/"
