"""The write guard in the fast tier (issue 41 item 8): `write_refusals` over a fake sysfs tree (a partition,
a holder, a loop device on the device, a mount), and `check_writable`'s refusal, with no real block device.
The device node is a blank regular file; what sits on it is the fake tree's (`probe.root.Root`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.probe import device_stack
from iolab.probe.device_stack import Above
from iolab.probe.root import Root
from iolab.runner.safety import check_writable, write_refusals

NAME = "iolabfake7"  # a kernel name no real device has: the live sysfs knows nothing of it


@pytest.fixture
def device(tmp_path: Path, iolab_home) -> str:  # type: ignore[no-untyped-def]
    node = tmp_path / NAME
    node.write_bytes(bytes(1 << 16))
    return str(node)


def _sysfs(tmp_path: Path) -> Path:
    top = tmp_path / "root"
    (top / "sys" / "class" / "block" / NAME / "holders").mkdir(parents=True)
    (top / "sys" / "block").mkdir(parents=True)
    return top


def test_a_blank_device_nothing_sits_on_is_writable(tmp_path, device):
    assert write_refusals(device, Root(_sysfs(tmp_path))) == []


def test_a_partition_and_a_holder_on_the_device_are_each_a_refusal(tmp_path, device):
    top = _sysfs(tmp_path)
    block = top / "sys" / "class" / "block" / NAME
    (block / f"{NAME}p1").mkdir()
    (block / f"{NAME}p1" / "partition").write_text("1\n")
    (block / "holders" / "dm-3").mkdir()
    assert write_refusals(device, Root(top)) == [
        f"{NAME}p1 is a partition of it",
        "dm-3 holds it (device-mapper, LVM or RAID)",
    ]


def test_check_writable_refuses_with_every_reason_and_what_to_do(device, monkeypatch):
    monkeypatch.setattr(device_stack, "above", lambda name, root=None: [Above("mount", "/data", name)])
    with pytest.raises(UserError) as refused:
        check_writable(device)
    message = str(refused.value)
    assert message.startswith(f"refusing to write to {device}: it is mounted at /data")
    assert "use a blank device" in message
    monkeypatch.setattr(device_stack, "above", lambda name, root=None: [])
    check_writable(device)  # nothing on it and blank: no refusal
