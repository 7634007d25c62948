"""Two of the write guard's reasons on a stand-in device (runner.safety.write_refusals), in the fast tier: a
device the kernel will not open exclusively is "in use" when nothing iolab can name sits on it (and only
then: a named holder says more), and a host without blkid cannot show the device blank, which is a refusal."""

from __future__ import annotations

import errno
import os

from iolab.probe.root import Root
from iolab.runner import safety
from iolab.runner.safety import write_refusals
from tests.runner.test_write_refusals_fake import _blkid, _device


def _busy(monkeypatch, device: str) -> None:  # type: ignore[no-untyped-def]
    real = os.open

    def open_(path, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        # the guard reaches the device through its pinned descriptor (/proc/PID/fd/N), which resolves to it
        if os.path.realpath(path) == os.path.realpath(device) and flags & os.O_EXCL:
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)


def test_a_device_held_exclusively_elsewhere_is_in_use_unless_a_holder_is_named(tmp_path, monkeypatch, iolab_home):
    _blkid(tmp_path, monkeypatch, "exit 2")
    device = _device(tmp_path)
    _busy(monkeypatch, device)
    assert write_refusals(device, Root(tmp_path)) == ["the kernel reports it in use (Device or resource busy)"]
    (tmp_path / "sys/class/block/loopx/holders/dm-3").mkdir()
    assert write_refusals(device, Root(tmp_path)) == ["dm-3 holds it (device-mapper, LVM or RAID)"]


def test_without_blkid_the_device_cannot_be_shown_blank(tmp_path, monkeypatch, iolab_home):
    device = _device(tmp_path)
    real = os.path.exists
    real_find = safety.programs.find
    monkeypatch.setattr(safety.programs, "find", lambda name: None if name.endswith("blkid") else real_find(name))
    monkeypatch.setattr(os.path, "exists", lambda path: False if str(path).endswith("/blkid") else real(path))
    (reason,) = write_refusals(device, Root(tmp_path))
    assert reason.startswith("it holds an unknown signature (blkid from util-linux is not installed")
