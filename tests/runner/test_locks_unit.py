"""The target locks in-process (issue 41 item 8): which names a target locks under, the file each name
becomes, all-or-none acquisition and the holder's note a refused run is shown. The end-to-end test
(tests/runner/test_run_loop.py) only sees one run refused by another."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest

from iolab.errors import UserError
from iolab.models import Target
from iolab.runner import locks
from iolab.runner.locks import TargetLocks, lock_names


def _target(path: str, members: tuple[str, ...] = (), kind: str = "file") -> Target:
    return Target(path=path, kind=kind, filename=path, size_bytes=0, members=members)  # type: ignore[arg-type]


def _fake_block_devices(monkeypatch: pytest.MonkeyPatch, devices: dict[str, tuple[int, int]]) -> None:
    """`os.stat` as locks.py calls it, with the paths of `devices` reading as block devices of those numbers."""
    real = os.stat

    def fake(path, *args, **kwargs):
        if str(path) in devices:
            return SimpleNamespace(st_mode=stat.S_IFBLK | 0o660, st_rdev=os.makedev(*devices[str(path)]))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(locks.os, "stat", fake)


def _lock_file(home: Path, name: str) -> Path:
    return home / "locks" / (hashlib.sha256(name.encode()).hexdigest()[:24] + ".lock")


def test_a_file_locks_under_its_real_path_and_a_missing_one_under_its_spelled_real_path(tmp_path):
    real = tmp_path / "data.bin"
    real.write_bytes(b"x")
    link = tmp_path / "link.bin"
    link.symlink_to(real)
    assert lock_names(_target(str(link))) == [str(real)]
    missing = tmp_path / "sub" / ".." / "absent.bin"
    assert lock_names(_target(str(missing))) == [str(tmp_path / "absent.bin")]


def test_a_block_device_locks_under_its_numbers_and_an_array_under_each_member(monkeypatch, tmp_path):
    _fake_block_devices(monkeypatch, {"/dev/fake0": (7, 3), "/dev/fake1": (259, 12)})
    assert lock_names(_target("/dev/fake0", kind="block")) == ["block 7:3"]
    group = _target("loop-array", members=("/dev/fake1", "/dev/fake0"), kind="group")
    assert lock_names(group) == ["block 259:12", "block 7:3"]  # the members, in their order; not the group's path


def test_each_name_is_one_file_named_by_its_hash_and_holds_who_holds_it(tmp_path):
    home = tmp_path / "home"
    target = tmp_path / "t.bin"
    target.write_bytes(b"")
    held = TargetLocks(home)
    held.acquire([_target(str(target))], "run 7")
    try:
        files = sorted(p.name for p in (home / "locks").iterdir())
        assert files == [_lock_file(home, str(target)).name]
        assert len(files[0]) == 24 + len(".lock")
        assert _lock_file(home, str(target)).read_text() == f"run 7 (pid {os.getpid()})"
        assert stat.S_IMODE((home / "locks").stat().st_mode) == 0o700
        assert stat.S_IMODE(_lock_file(home, str(target)).stat().st_mode) == 0o600
        held.name_holder("run 8")  # named again: the old note is replaced whole, not overwritten in part
        assert _lock_file(home, str(target)).read_text() == f"run 8 (pid {os.getpid()})"
    finally:
        held.release()
    assert held.held == []


def test_a_held_target_refuses_a_second_holder_naming_the_first_and_locks_nothing(tmp_path, monkeypatch):
    _fake_block_devices(monkeypatch, {"/dev/fake0": (7, 3)})
    home = tmp_path / "home"
    free = tmp_path / "free.bin"
    free.write_bytes(b"")
    first = TargetLocks(home)
    first.acquire([_target("/dev/fake0", kind="block")], "run 1")
    second = TargetLocks(home)
    with pytest.raises(UserError) as refused:
        second.acquire([_target(str(free)), _target("/dev/fake0", kind="block")], "run 2")
    assert str(refused.value) == f"7:3 is in use by run 1 (pid {os.getpid()}); wait for it to end, or stop it"
    assert second.held == []
    # all or none: the free target's lock, taken before the refusal, was let go
    third = TargetLocks(home)
    third.acquire([_target(str(free))], "run 3")
    third.release()
    first.release()
    second.acquire([_target("/dev/fake0", kind="block")], "run 2")  # released: free again
    second.release()


def test_a_holder_without_a_note_is_another_run_and_a_long_note_is_read_to_512_bytes(tmp_path):
    home = tmp_path / "home"
    target = tmp_path / "t.bin"
    target.write_bytes(b"")
    first = TargetLocks(home)
    first.acquire([_target(str(target))], "x" * 600)
    try:
        with pytest.raises(UserError) as long_note:
            TargetLocks(home).acquire([_target(str(target))], "other")
        assert f"is in use by {'x' * 512}; wait" in str(long_note.value)
        os.truncate(_lock_file(home, str(target)), 0)
        with pytest.raises(UserError, match=r"is in use by another iolab run; wait"):
            TargetLocks(home).acquire([_target(str(target))], "other")
    finally:
        first.release()


def test_one_target_named_twice_or_two_spellings_of_it_is_locked_once(tmp_path):
    home = tmp_path / "home"
    target = tmp_path / "t.bin"
    target.write_bytes(b"")
    link = tmp_path / "l.bin"
    link.symlink_to(target)
    held = TargetLocks(home)
    held.acquire([_target(str(target)), _target(str(link)), _target(str(target))], "run 1")
    try:
        assert len(held.held) == 1
    finally:
        held.release()
