"""The probe asks statvfs only of mounts that answer at once (probe.fs.read_filesystems): block-backed ones,
RAM file systems, and a network mount only when a run targets it; asking a hung NFS server would hang the
probe. Read over a captured tree whose Root records what was asked."""

from __future__ import annotations

from pathlib import Path

from iolab.probe.fs import read_filesystems
from iolab.probe.root import Root

MOUNTS = [
    ("8:1", "/", "ext4", "/dev/sda1"),
    ("0:30", "/dev/shm", "tmpfs", "tmpfs"),
    ("0:41", "/mnt/shared", "nfs4", "server:/shared"),
    ("0:42", "/mnt/target", "nfs4", "server:/target"),
]


class Asked(Root):
    """A captured tree that records every mount statvfs is asked of, answering 1 GiB free of 2."""

    def __init__(self, base: Path) -> None:
        super().__init__(base)
        self.asked: list[str] = []

    def statvfs(self, mount_point: str) -> dict[str, int] | None:
        self.asked.append(mount_point)
        return {"size_bytes": 2 << 30, "used_bytes": 1 << 30, "avail_bytes": 1 << 30}


def test_statvfs_is_asked_of_block_and_ram_mounts_and_only_a_targeted_network_mount(tmp_path):
    (tmp_path / "proc/self").mkdir(parents=True)
    lines = [f"{20 + i} 1 {mm} / {point} rw - {fs} {source} rw" for i, (mm, point, fs, source) in enumerate(MOUNTS)]
    (tmp_path / "proc/self/mountinfo").write_text("\n".join(lines) + "\n")
    root = Asked(tmp_path)
    found = {fs.mount_point: fs for fs in read_filesystems(root, {"/mnt/target"})}
    assert root.asked == ["/", "/dev/shm", "/mnt/target"]
    assert found["/mnt/shared"].size_bytes is None and found["/mnt/target"].avail_bytes == 1 << 30
    assert found["/dev/shm"].used_bytes == 1 << 30
