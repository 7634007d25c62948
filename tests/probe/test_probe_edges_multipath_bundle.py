"""Probe edges (issue 41: `bench/mutation.py --whole` found these held by no fast test): a namespace under
native NVMe multipath in a fake /sys, laid out as the kernel does it, and the bundle `probe --save` writes."""

from __future__ import annotations

import os
import stat
import tarfile
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.probe import Root
from iolab.probe.block import read_device
from iolab.probe.bundle import open_bundle, save_bundle

SUBSYS = "sys/devices/virtual/nvme-subsystem/nvme-subsys0"
PORTS = {
    "nvme0": "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0",
    "nvme1": "sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0",
}


def _write(tree: Path, rel: str, text: str) -> None:
    (tree / rel).parent.mkdir(parents=True, exist_ok=True)
    (tree / rel).write_text(text + "\n")


def _link(tree: Path, rel: str, target: str) -> None:
    (tree / rel).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(tree / target, (tree / rel).parent), tree / rel)


def _multipath(tree: Path, controllers: tuple[str, ...]) -> Root:
    """nvme0n1 as native multipath shows it: the namespace under the subsystem, its `device` the subsystem, the
    subsystem listing its controllers (each a link to its PCI function's controller directory)."""
    namespace = f"{SUBSYS}/nvme0n1"
    _write(tree, f"{namespace}/size", "2000409264")
    _write(tree, f"{namespace}/dev", "259:0")
    _write(tree, f"{namespace}/queue/rotational", "0")
    _link(tree, f"{namespace}/device", SUBSYS)
    _link(tree, "sys/block/nvme0n1", namespace)
    for name in controllers:
        ctrl = f"{PORTS[name]}/nvme/{name}"
        _write(tree, f"{ctrl}/model", f"drive behind {name}")
        _write(tree, f"{ctrl}/transport", "pcie")
        _write(tree, f"{PORTS[name]}/numa_node", "1" if name == "nvme1" else "0")
        _link(tree, f"{SUBSYS}/{name}", ctrl)
        _link(tree, f"sys/class/nvme/{name}", ctrl)
    return Root(tree)


def test_a_multipath_namespace_is_read_through_its_first_controller(tmp_path):
    device = read_device(_multipath(tmp_path, ("nvme1", "nvme0")), "nvme0n1", with_smart=False)
    assert (device.nvme_controller, device.model, device.transport) == ("nvme0", "drive behind nvme0", "pcie")
    assert device.numa_node == 0 and device.pcie is not None and device.pcie.address == "0000:01:00.0"
    assert device.size_bytes == 2000409264 * 512


def test_a_multipath_namespace_with_no_controller_left_has_none(tmp_path):
    device = read_device(_multipath(tmp_path, ()), "nvme0n1", with_smart=False)
    assert (device.nvme_controller, device.model, device.pcie) == (None, None, None)


def test_the_bundle_keeps_what_the_probe_read_as_shareable_files_and_reads_back_the_same(tmp_path):
    """`probe --save` records the live machine: its entries are plain files 0644, directories 0755 and sysfs
    links as relative links, and the bundle file itself takes the umask's mode as any new file does."""
    live = Root("/", record=True)
    version = live.read_text("/proc/version")
    assert version is not None
    disks = live.listdir("/sys/block")  # each a link into /sys/devices
    live.captured["/iolab/commands/uname.txt"] = b"Linux\n"
    dest = tmp_path / "host.tar.gz"
    umask = os.umask(0o022)
    try:
        count = save_bundle(live, dest)
    finally:
        os.umask(umask)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o644
    with tarfile.open(dest) as tar:
        members = tar.getmembers()
        assert len(members) == count
        kinds = {m.name: (m.type, stat.S_IMODE(m.mode)) for m in members}
        assert kinds["proc/version"] == (tarfile.REGTYPE, 0o644)
        assert kinds["iolab/commands/uname.txt"] == (tarfile.REGTYPE, 0o644)
        assert all(mode == 0o755 for kind, mode in kinds.values() if kind == tarfile.DIRTYPE)
        links = [m for m in members if m.issym()]
        assert len(links) >= len(disks) and all(not os.path.isabs(m.linkname) for m in links)
    with open_bundle(dest) as saved:
        assert saved.read_text("/proc/version") == version
        assert saved.read_text("/iolab/commands/uname.txt") == "Linux\n"


def test_a_bundle_of_a_tree_that_is_not_the_live_machine_or_not_a_bundle_is_refused_in_one_line(tmp_path):
    with pytest.raises(UserError, match="captures the live machine"):
        save_bundle(Root(tmp_path, record=True), tmp_path / "b.tar.gz")
    with pytest.raises(UserError, match="not found"):
        with open_bundle(tmp_path / "missing.tar.gz"):
            pass
    (tmp_path / "junk.tar.gz").write_text("not a tar")
    with pytest.raises(UserError, match="not a readable .tar.gz"):
        with open_bundle(tmp_path / "junk.tar.gz"):
            pass
