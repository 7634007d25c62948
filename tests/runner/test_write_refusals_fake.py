"""The write guard on a stand-in device (a file of this test's, named like a device) with a fake /sys and a blkid
on PATH that says what this test wants: every reason is given, each guard can be switched off, and blkid's words
are put into the user's. (test_write_guard.py does the same on real loop devices, end to end.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab import guards
from iolab.errors import UserError
from iolab.models import Target
from iolab.probe.root import Root
from iolab.runner.safety import REMOTE_DEVICE, _described, writable_target, write_refusals


def _blkid(tmp_path: Path, monkeypatch, body: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    blkid = bin_dir / "blkid"
    blkid.write_text(f"#!/bin/sh\n{body}\n")
    blkid.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")


def _device(tmp_path: Path, data: bytes = b"") -> str:
    path = tmp_path / "dev" / "loopx"
    path.parent.mkdir(exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(8 << 20)
        f.write(data)
    (tmp_path / "sys/class/block/loopx/holders").mkdir(parents=True, exist_ok=True)
    return str(path)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"PTTYPE": "gpt", "TYPE": "x"}, "a gpt partition table"),
        ({"TYPE": "ext4", "UUID": "u"}, "a ext4 signature"),
        ({"UUID": "u", "PART_ENTRY_NAME": "p"}, "a signature (PART_ENTRY_NAME, UUID)"),
        ({}, None),
    ],
)
def test_blkid_s_fields_in_words(fields, words):
    assert _described(fields) == words


def test_a_blank_unused_device_has_no_reason(tmp_path, monkeypatch):
    _blkid(tmp_path, monkeypatch, "exit 2")  # blkid: nothing found
    assert write_refusals(_device(tmp_path), Root(tmp_path)) == []


def test_every_reason_is_given_and_a_guard_switched_off_drops_only_its_own(tmp_path, monkeypatch):
    _blkid(tmp_path, monkeypatch, 'echo "TYPE=xfs"; echo "UUID=1234"; exit 0')
    device = _device(tmp_path, b"XFSB")
    (tmp_path / "sys/class/block/loopx/holders/dm-3").mkdir()
    (tmp_path / "sys/class/block/loopx/dev").write_text("7:9\n")
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/mounts").write_text("/dev/loopx /mnt/x xfs rw 0 0\n")
    (tmp_path / "proc/self").mkdir()
    (tmp_path / "proc/self/mountinfo").write_text("40 1 7:9 / /mnt/x rw - xfs /dev/loopx rw\n")
    reasons = write_refusals(device, Root(tmp_path))
    assert reasons[:2] == ["dm-3 holds it (device-mapper, LVM or RAID)", "it is mounted at /mnt/x"]
    assert "it holds a xfs signature" in reasons
    assert not any(r.startswith("it holds data") for r in reasons)  # the signature said it: no second reason
    with guards.switched_off("mount-check"):
        assert not any("mounted" in r for r in write_refusals(device, Root(tmp_path)))
    with guards.switched_off("blkid-signature"):
        unsigned = write_refusals(device, Root(tmp_path))
        assert "it holds a xfs signature" not in unsigned
        assert any(r.startswith("it holds data (a non-zero byte at offset 0;") for r in unsigned)


def test_blkid_failing_is_an_unreadable_signature_area_in_its_own_words(tmp_path, monkeypatch):
    device = _device(tmp_path)
    _blkid(tmp_path, monkeypatch, 'echo "blkid: cannot open" >&2; exit 4')
    assert write_refusals(device, Root(tmp_path)) == [
        "it holds an unreadable signature area (blkid failed: blkid: cannot open)"
    ]
    _blkid(tmp_path, monkeypatch, "exit 8")
    assert write_refusals(device, Root(tmp_path)) == ["it holds an unreadable signature area (blkid failed: 8)"]


def _target(kind: str, **kw) -> Target:
    return Target(path="/x", kind=kind, filename="/x", size_bytes=1, **kw)  # type: ignore[arg-type]


def test_only_what_iolab_creates_or_the_user_allows_is_written():
    scratch = _target("directory", scratch=True)
    assert writable_target(scratch, allow_write=False) is scratch
    assert not writable_target(_target("block", writable=True), allow_write=False).writable
    with pytest.raises(UserError, match="^/x is an existing file: iolab never writes to a file it did not create"):
        writable_target(_target("file"), allow_write=True)
    with guards.switched_off("existing-file-refusal"):
        assert writable_target(_target("file"), allow_write=True).writable
    for kind in ("block", "group"):
        with pytest.raises(UserError, match=f"^refusing to write to /x: {REMOTE_DEVICE[:30]}"):
            writable_target(_target(kind, hosts=("a", "b")), allow_write=True)
    assert writable_target(_target("directory", hosts=("a",)), allow_write=True).writable
