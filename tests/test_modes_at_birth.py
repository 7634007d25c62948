"""What iolab creates is private from the moment it exists, not only once it is finished: a directory is
made 0700 by mkdir itself (the fchmod after it only undoes a umask), a file 0600 by its open, and a
temporary name is iolab's own pattern. The class: a mode checked only at the end, where a later call
covers for a wrong first one (mkdir with 0701 left others a moment to traverse and open inside; seed 61013
of bench/mutation.py). Each is read under umask 0, where nothing narrows the mode given."""

from __future__ import annotations

import os
import re
import stat

import pytest

from iolab import pathchain, private


@pytest.fixture
def open_umask():
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: str, dir_fd: int | None = None) -> int:
    return stat.S_IMODE(os.stat(path, dir_fd=dir_fd, follow_symlinks=False).st_mode)


def test_each_directory_made_on_the_way_is_0700_as_mkdir_leaves_it(tmp_path, monkeypatch, open_umask):
    born: list[int] = []
    real_mkdir = os.mkdir

    def watched(name, mode=0o777, *, dir_fd=None):  # type: ignore[no-untyped-def]
        real_mkdir(name, mode, dir_fd=dir_fd)
        born.append(_mode(name, dir_fd))

    monkeypatch.setattr(pathchain.os, "mkdir", watched)
    deepest = tmp_path / "a" / "b" / "c"
    private.private_dir(deepest)
    assert born == [0o700, 0o700, 0o700]
    assert [_mode(str(p)) for p in (tmp_path / "a", tmp_path / "a" / "b", deepest)] == [0o700] * 3


def test_a_directory_already_there_is_kept_as_it_is(tmp_path, open_umask):
    (tmp_path / "shared").mkdir(mode=0o755)
    private.private_dir(tmp_path / "shared" / "mine")
    assert (_mode(str(tmp_path / "shared")), _mode(str(tmp_path / "shared" / "mine"))) == (0o755, 0o700)


def test_a_new_file_and_a_temporary_name_are_0600_at_their_open(tmp_path, open_umask):
    fd = pathchain.create_file(str(tmp_path / "made"), os.O_WRONLY)
    os.close(fd)
    assert _mode(str(tmp_path / "made")) == 0o600
    held = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        name, fd = private._temporary(held, "report.json")
        os.close(fd)
        assert re.fullmatch(r"\.report\.json\.[0-9a-f]{8}\.tmp", name), name
        assert _mode(name, held) == 0o600
    finally:
        os.close(held)


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0, 0o666)])
def test_a_file_shared_as_the_umask_says_gets_0666_less_it(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        private.write_private(tmp_path / "picture.svg", "<svg/>", private.AS_UMASK)
        assert (_mode(str(tmp_path / "picture.svg")), os.umask(umask)) == (mode, umask)
    finally:
        os.umask(old)


def test_a_private_write_is_0600_and_the_mode_asked_for_otherwise(tmp_path, open_umask):
    private.write_private(tmp_path / "a", "x")
    private.write_private(tmp_path / "b", b"y", 0o640)
    assert (_mode(str(tmp_path / "a")), _mode(str(tmp_path / "b"))) == (0o600, 0o640)
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]  # no temporary left beside them
