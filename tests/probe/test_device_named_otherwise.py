"""A device node named otherwise than the kernel names its device (a container's /dev/xvdb for the host's
nvme0n1, a node some tool made elsewhere): the write guard and the target reader judge the device the node
carries (its device number), not a device its name happens to suggest. Real loop devices: a blank one with a
second loop device backed by it, reached through a node of another name; the write guard must name the loop
on top, and its bytes (checksummed) must be the same after the refusal."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.probe import device_stack
from iolab.runner.safety import check_writable, write_refusals
from iolab.runner.targets import resolve_target
from tests.loopdev import loop_devices, loop_skip_reason

pytestmark = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))


@contextmanager
def _node_named(tmp_path: Path, device: str, name: str) -> Iterator[str]:
    """A block node `name` in a root-only directory of this test, carrying `device`'s number."""
    info = os.stat(device)
    where = tmp_path / "nodes"
    where.mkdir(mode=0o755)
    node = where / name
    os.mknod(node, 0o600 | 0o060000, info.st_rdev)
    try:
        yield str(node)
    finally:
        node.unlink()


def _sha(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_a_node_of_another_name_is_judged_as_the_device_it_carries(tmp_path, iolab_home):
    with loop_devices(1, size_mib=16) as (dev,), _node_named(tmp_path, dev.path, "xvdb") as node:
        assert device_stack.kernel_name(node) == dev.name
        on_top = subprocess.run(
            ["losetup", "-f", "--show", dev.path], check=True, capture_output=True, text=True
        ).stdout.strip()
        try:
            before = _sha(dev.path)
            reasons = write_refusals(node)
            assert f"{os.path.basename(on_top)} is backed by it (at offset 0)" in reasons
            with pytest.raises(UserError, match="is backed by it"):
                check_writable(node)
            assert _sha(dev.path) == before
        finally:
            subprocess.run(["losetup", "-d", on_top], check=False)
        assert write_refusals(node) == []  # nothing on it now, and blank: the same node is writable


def test_the_target_reads_the_size_of_the_device_the_node_carries(tmp_path, iolab_home):
    with loop_devices(1, size_mib=16) as (dev,), _node_named(tmp_path, dev.path, "xvdq") as node:
        target = resolve_target(node)
        assert target.kind == "block"
        assert target.size_bytes == 16 << 20


def test_a_name_switched_between_the_checks_cannot_make_them_judge_two_devices(tmp_path, iolab_home, monkeypatch):
    """A link to a device holding data, switched to a blank device while the guard reads the stack: every
    later check still reads the device the link named when the guard began (pinned), so data is found."""
    with loop_devices(2, size_mib=16) as (holding, blank_one):
        with open(holding.backing, "r+b") as f:
            f.seek(5 << 20)
            f.write(b"someone's data")
        link = tmp_path / "target"
        link.symlink_to(holding.path)
        stack = device_stack.above

        def switching(name, root=None):  # type: ignore[no-untyped-def]
            link.unlink()
            link.symlink_to(blank_one.path)  # another user's (or tool's) switch, mid-check
            return stack(name, root)

        monkeypatch.setattr(device_stack, "above", switching)
        before = _sha(holding.path)
        reasons = write_refusals(str(link))
        assert any("it holds data" in r for r in reasons), reasons
        assert _sha(holding.path) == before
