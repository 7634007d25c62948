"""How a target's O_DIRECT support and free room are found (runner.targets): a file system that refuses
O_DIRECT (EINVAL, tmpfs before Linux 6.6) is read buffered, while a directory iolab cannot create in is a
refusal naming why; a file whose O_DIRECT open fails for another reason is left to its real open to say
why; ramfs reports no blocks at all, so memory available stands in for its free room."""

from __future__ import annotations

import errno
import os
from types import SimpleNamespace

import pytest

from iolab import pathchain
from iolab.errors import UserError
from iolab.probe.root import Root
from iolab.runner import targets


def _refusing(code: int):  # type: ignore[no-untyped-def]
    def create_file(path: str, flags: int) -> int:
        raise OSError(code, os.strerror(code))

    return create_file


def test_a_file_system_refusing_o_direct_is_read_buffered_and_an_unwritable_directory_is_refused(tmp_path, monkeypatch):
    assert targets.supports_direct(tmp_path) in (True, False)  # this host's answer; nothing left behind
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(pathchain, "create_file", _refusing(errno.EINVAL))
    assert targets.supports_direct(tmp_path) is False
    monkeypatch.setattr(pathchain, "create_file", _refusing(errno.EACCES))
    with pytest.raises(UserError, match=f"^cannot create a file in {tmp_path}: Permission denied; choose a directory"):
        targets.supports_direct(tmp_path)


@pytest.mark.parametrize(("code", "direct"), [(errno.EINVAL, False), (errno.EACCES, True), (None, True)])
def test_a_file_is_read_direct_unless_its_file_system_refuses_o_direct(tmp_path, monkeypatch, code, direct):
    path = tmp_path / "data"
    path.write_bytes(bytes(4096))
    real = os.open

    def open_(name, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        if code is not None and str(name) == str(path) and flags & os.O_DIRECT:
            raise OSError(code, os.strerror(code))
        return real(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    if code is None and not targets.supports_direct(tmp_path):
        pytest.skip("this file system refuses O_DIRECT")
    assert targets.reads_direct(str(path)) is direct


def test_ramfs_free_room_is_the_memory_available(tmp_path, monkeypatch):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/meminfo").write_text("MemTotal: 4000 kB\nMemAvailable:    1234 kB\n")
    root = Root(tmp_path)
    monkeypatch.setattr(os, "statvfs", lambda d: SimpleNamespace(f_blocks=0, f_bavail=0, f_frsize=4096))
    assert targets._free_bytes(tmp_path, True, root) == 1234 * 1024
    assert targets._free_bytes(tmp_path, False, root) == 0  # not RAM-backed: as statvfs says
    monkeypatch.setattr(os, "statvfs", lambda d: SimpleNamespace(f_blocks=10, f_bavail=5, f_frsize=4096))
    assert targets._free_bytes(tmp_path, True, root) == 5 * 4096  # tmpfs reports its blocks: as it says
