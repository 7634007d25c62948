"""Mounts read from generated mountinfo lines of every shape the kernel writes (optional fields or none, super
options or none) in a fake tree, and which mounts the probe asks the fullness of (issue 41: the captured
trees' mountinfo has one shape, and every mount in them is asked or none is, so a field read from the wrong
column or `wanted`'s `or` turned round passed)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from iolab.probe.fs import PSEUDO_FILESYSTEMS, filesystem_of, read_filesystems, read_mounts
from iolab.probe.root import Root


def _tree(tmp_path: Path, lines: list[str], statvfs: dict | None = None) -> Root:
    (tmp_path / "proc/self").mkdir(parents=True, exist_ok=True)
    (tmp_path / "proc/self/mountinfo").write_text("".join(line + "\n" for line in lines))
    if statvfs is not None:
        (tmp_path / "iolab").mkdir(exist_ok=True)
        (tmp_path / "iolab/statvfs.json").write_text(json.dumps(statvfs))
    return Root(tmp_path)


@pytest.mark.parametrize("seed", range(5))
def test_each_field_of_a_mountinfo_line_of_any_shape_is_read_from_its_column(tmp_path, seed):
    rng = random.Random(seed)
    lines, want = [], []
    for i in range(6):
        optional = " ".join(rng.sample(["shared:1", "master:2", "propagate_from:3", "unbindable"], rng.randint(0, 2)))
        point, source = f"/mnt/m{i}", f"/dev/sd{'abcdef'[i]}{i}"
        mm, options, kind = (
            f"{8 + i}:{rng.randrange(256)}",
            rng.choice(["rw,relatime", "ro,noatime"]),
            rng.choice(["ext4", "xfs"]),
        )
        sup = rng.choice(["", " rw,discard", " rw,errors=remount-ro"])
        lines.append(f"{20 + i} 1 {mm} / {point} {options}{' ' + optional if optional else ''} - {kind} {source}{sup}")
        want.append((point, kind, source, mm, options + ("," + sup.strip() if sup else "")))
    lines += ["36 35 98:0 /mnt1 /mnt2 rw", "36 35 98:0 / - ext4", "short - ext4 /dev/x"]  # not mounts
    got = [(m.mount_point, m.fs_type, m.source, m.major_minor, m.options) for m in read_mounts(_tree(tmp_path, lines))]
    assert got == want


def test_escaped_spaces_and_backslashes_are_read_and_other_bytes_left_as_they_are(tmp_path):
    root = _tree(
        tmp_path,
        ["1 0 8:1 / /mnt/a\\040b\\134c rw - ext4 /dev/disk\\040x rw", "2 0 8:2 / /mnt/données rw - ext4 /dev/sdb1"],
    )
    assert [(m.mount_point, m.source) for m in read_mounts(root)] == [
        ("/mnt/a b\\c", "/dev/disk x"),
        ("/mnt/données", "/dev/sdb1"),
    ]


LINES = [
    "1 0 8:1 / / rw - ext4 /dev/sda1 rw",
    "2 1 0:30 / /dev/shm rw - tmpfs tmpfs rw",
    "3 1 0:50 / /mnt/nfs rw - nfs4 srv:/x rw,rsize=1048576",
    "4 1 0:51 / /mnt/target rw - nfs4 srv:/y rw",
    "5 1 0:5 / /proc rw - proc proc rw",
    "6 1 0:52 / /mnt/fuse rw - fuse.sshfs host:/ rw",
]


def test_fullness_is_asked_of_block_backed_ram_and_target_mounts_only(tmp_path):
    entry = {"size_bytes": 100, "used_bytes": 40, "avail_bytes": 60}
    table = {point: entry for point in ("/", "/dev/shm", "/mnt/nfs", "/mnt/target", "/mnt/fuse")}
    root = _tree(tmp_path, LINES, table)
    (tmp_path / "sys/class/bdi/0:50").mkdir(parents=True)
    (tmp_path / "sys/class/bdi/0:50/read_ahead_kb").write_text("128\n")
    found = {fs.mount_point: fs for fs in read_filesystems(root, statvfs_mounts={"/mnt/target"})}
    assert sorted(found) == ["/", "/dev/shm", "/mnt/fuse", "/mnt/nfs", "/mnt/target"]  # proc is no storage
    asked = {p for p, fs in found.items() if fs.size_bytes is not None}
    assert asked == {"/", "/dev/shm", "/mnt/target"}  # a hung network mount is never asked unless it is a target
    assert (found["/"].used_bytes, found["/"].avail_bytes, found["/"].options) == (40, 60, ["rw", "rw"])
    assert (found["/mnt/nfs"].read_ahead_kb, found["/mnt/target"].read_ahead_kb, found["/"].read_ahead_kb) == (
        128,
        None,
        None,
    )
    assert "proc" in PSEUDO_FILESYSTEMS


def test_the_file_system_of_a_path_is_its_longest_mount_point_prefix(tmp_path):
    filesystems = read_filesystems(_tree(tmp_path, LINES))
    assert filesystem_of("/mnt/nfs/a/b", filesystems).mount_point == "/mnt/nfs"  # type: ignore[union-attr]
    assert filesystem_of("/mnt/nfs", filesystems).mount_point == "/mnt/nfs"  # type: ignore[union-attr]
    assert filesystem_of("/mnt/nfsx/a", filesystems).mount_point == "/"  # type: ignore[union-attr]
    assert filesystem_of("/dev/shm/f", filesystems).fs_type == "tmpfs"  # type: ignore[union-attr]
    assert filesystem_of("relative", filesystems) is None
