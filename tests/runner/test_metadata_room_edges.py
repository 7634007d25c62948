"""The metadata preset's room check at its edges, on a fake file system (statvfs answered by the test): a
directory with room for exactly the largest count's files is accepted, one file fewer is refused; the room
is read as an unprivileged user may use it, and a file system that makes inodes as needed has no count."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from iolab.errors import UserError
from iolab.models import MetadataScaling, Target
from iolab.runner import metadata
from iolab.runner.metadata import FileRoom, check_room, file_room


@pytest.mark.parametrize("per_thread", [None, 20])
def test_room_for_exactly_the_largest_counts_files_is_enough_and_one_fewer_is_not(monkeypatch, per_thread):
    scaling = MetadataScaling(threads=(4, 8, 2), runtime=1.0, files_per_thread=per_thread)
    need = 8 * (per_thread or 16)
    target = Target(path="/md", kind="directory", filename="x", size_bytes=0)
    monkeypatch.setattr(metadata, "file_room", lambda directory: SimpleNamespace(files=need, said=lambda: "room"))
    check_room(scaling, [target])
    monkeypatch.setattr(metadata, "file_room", lambda directory: SimpleNamespace(files=need - 1, said=lambda: "room"))
    with pytest.raises(UserError) as refused:
        check_room(scaling, [target])
    fits = (need - 1) // (per_thread or 16)
    assert str(refused.value) == (
        f"/md has room for {need - 1:,} files (room): 8 threads x {per_thread or 16} files need {need:,}; "
        f"it holds enough for {fits} threads; free inodes and space, or give a larger file system"
    )


def test_no_room_for_one_thread_says_nothing_of_what_would_fit(monkeypatch):
    monkeypatch.setattr(metadata, "file_room", lambda directory: SimpleNamespace(files=15, said=lambda: "room"))
    target = Target(path="/md", kind="directory", filename="x", size_bytes=0)
    with pytest.raises(UserError) as refused:
        check_room(MetadataScaling(threads=(1,), runtime=1.0), [target])
    assert "enough for" not in str(refused.value) and "need 16;" in str(refused.value)


def test_the_room_is_what_statvfs_gives_an_unprivileged_user(monkeypatch, tmp_path):
    stats = SimpleNamespace(f_files=1000, f_favail=700, f_ffree=900, f_bavail=50, f_bfree=80, f_frsize=4096, f_bsize=1)
    monkeypatch.setattr(metadata.os, "statvfs", lambda path: stats)
    assert file_room(tmp_path) == FileRoom(str(tmp_path), 700, 50 * 4096)
    stats.f_files = 0  # btrfs: no inode count at all
    assert file_room(tmp_path).inodes is None


def test_space_counts_in_whole_files_before_the_share_is_taken():
    """11 files and 4095 bytes of space hold 11 files (a part of a file holds none), of which 90% is 9.9: 9."""
    assert FileRoom("/d", None, 4096 * 11 + 4095).files == 9
    assert FileRoom("/d", 5, 4096 * 11 + 4095).files == 4  # fewer inodes than files the space holds
