"""A captured host (`--root DIR`, an unpacked bundle) is resolved by its own links only, and nothing of the
machine running the probe is read while working from it. `fs.mount_of` once resolved a loop device's
backing file with this machine's `os.path.realpath`, and `Root.realpath` of a tree followed the tree's
absolute links out of it: a backing file reached through a link of the captured host (/srv -> /mnt/ram)
landed on this machine's mounts, or on none, and a loop device over a RAM file system passed for one on
disk. Here every tree's paths exist on no machine (`/iolab-captured-<random>`), each tree links its way to
the backing file differently (absolute, relative, through `..`, through a chain, to the tree's own place
here, not at all), and every path the probe hands to the operating system is recorded: all of them must lie
inside the tree."""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest

from iolab.models.snapshot import RAM_FILESYSTEMS
from iolab.probe import fs
from iolab.probe.root import Root
from iolab.probe.snapshot import take_snapshot

# "here": an absolute link to the tree's own place on this machine, as trees built here hold (tests' /sys trees)
LAYOUTS = ("absolute", "relative", "dotdot", "chain", "here", "plain")
_touched: list[str] | None = None  # the paths handed to the operating system while a test records
_warm: list[bool] = []


def _audit(event: str, args: tuple) -> None:
    """Absolute paths opened or listed (a name relative to a held directory is recorded by `_record`)."""
    if _touched is not None and event in ("open", "os.listdir", "os.scandir") and args and args[0] is not None:
        if not isinstance(args[0], int) and os.path.isabs(os.fsdecode(args[0])):
            _touched.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)  # a hook cannot be removed: it records only while `_touched` is a list


def _captured(tree: Path, layout: str, dest: str) -> tuple[str, str, str]:
    """A captured host in `tree` whose loop0 is backed by a file reached through links of its own; returns
    (the backing file's name, where it resolves to in the tree, the mount point holding it)."""
    top = f"iolab-captured-{uuid.uuid4().hex[:12]}"  # on no machine: a lookup here finds nothing
    mountinfo = (
        "20 1 8:0 / / rw - ext4 /dev/sda rw\n"
        f"21 20 0:40 / /{top}/ram rw - tmpfs tmpfs rw\n"
        f"22 20 8:16 / /{top}/disk rw - ext4 /dev/sdb rw\n"
    )
    (tree / "proc/self").mkdir(parents=True)
    (tree / "proc/self/mountinfo").write_text(mountinfo)
    (tree / top / dest / "images").mkdir(parents=True)
    (tree / top / dest / "images/disk.img").write_text("")
    data = tree / top / "data"
    if layout == "absolute":
        data.symlink_to(f"/{top}/{dest}")
    elif layout == "relative":
        data.symlink_to(dest)
    elif layout == "dotdot":
        data.symlink_to(f"../{top}/./{dest}/images/..")
    elif layout == "here":
        data.symlink_to(tree / top / dest)
    elif layout == "chain":
        (tree / top / "hop").symlink_to(f"/{top}/{dest}")
        data.symlink_to("hop")
    for name, number in (("loop0", "7:0"), ("sda", "8:0"), ("sdb", "8:16")):
        device = tree / "sys/devices/virtual/block" / name
        device.mkdir(parents=True)
        (device / "dev").write_text(f"{number}\n")
        (device / "size").write_text("2048\n")
        for link in (tree / "sys/block" / name, tree / "sys/class/block" / name, tree / "sys/dev/block" / number):
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(device, link.parent))
    (tree / "sys/devices/virtual/block/loop0/loop").mkdir()
    backing = f"/{top}/data/images/disk.img"
    (tree / "sys/devices/virtual/block/loop0/loop/backing_file").write_text(backing + "\n")
    if layout == "plain":
        return backing, backing, "/"
    return backing, f"/{top}/{dest}/images/disk.img", f"/{top}/{dest}"


def _record(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every path given to the lookups without an audit event (stat, lstat, readlink, statvfs) recorded too, and
    every relative one given to os.open; a name looked up relative to a held directory (`dir_fd`, as the tree
    walks from its descriptor) as the path it names there, any other relative name from the working directory."""
    where = os.readlink
    for name in ("stat", "lstat", "readlink", "statvfs", "open"):
        real = getattr(os, name)

        def recording(path, *args, _real=real, **kwargs):  # type: ignore[no-untyped-def]
            if _touched is not None and not isinstance(path, int):
                held = kwargs.get("dir_fd")
                base = where(f"/proc/self/fd/{held}") if held is not None else os.getcwd()
                _touched.append(os.path.join(base, os.fsdecode(path)))
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, recording)


@pytest.mark.parametrize("dest", ["ram", "disk"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_captured_tree_is_resolved_by_its_own_links_and_only_it_is_read(tmp_path, monkeypatch, layout, dest):
    global _touched
    tree = tmp_path / "tree"
    backing, resolved, mount_point = _captured(tree, layout, dest)
    root = Root(tree)
    if not _warm:  # everything the probe imports, imported once before any read is recorded
        take_snapshot(Root(tree), [backing])
        _warm.append(True)
    _record(monkeypatch)
    _touched = []
    try:
        assert root.realpath(backing) == resolved
        mount = fs.mount_of(backing, root)
        assert mount is not None and mount.mount_point == mount_point
        on_ram = mount.fs_type in RAM_FILESYSTEMS
        assert fs.ram_backed_device("loop0", root, RAM_FILESYSTEMS) is on_ram
        snap = take_snapshot(root, [backing, "/dev/loop0"])
        (file, device) = snap.targets
        assert (file.mount_point, file.ram_backed) == (mount_point, on_ram)
        assert device.ram_backed is on_ram
    finally:
        touched, _touched = _touched, None
    mine = (str(tree), os.path.realpath(tree))
    outside = [p for p in touched if not any(p == m or p.startswith(m + "/") for m in mine)]
    assert touched and outside == []
