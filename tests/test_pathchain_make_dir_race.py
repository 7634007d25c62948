"""make_dir's stat is of the name it made, never followed: were the new directory swapped for a symlink
between the mkdir and the stat, the identity returned (and recorded as iolab's directory) must be the link's,
which the checks after it refuse, not the identity of whatever the link names (fresh seed 84263 found
`follow_symlinks=False` turned True survived: no test swapped the directory in that window)."""

from __future__ import annotations

import os
import stat

from iolab import pathchain


def test_a_directory_swapped_for_a_link_after_its_mkdir_is_stat_as_the_link(tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    real_mkdir = os.mkdir

    def mkdir_then_swap(name, mode=0o777, *, dir_fd=None):  # type: ignore[no-untyped-def]
        real_mkdir(name, mode, dir_fd=dir_fd)
        os.rmdir(name, dir_fd=dir_fd)
        os.symlink(str(elsewhere), name, dir_fd=dir_fd)

    monkeypatch.setattr(pathchain.os, "mkdir", mkdir_then_swap)
    made = pathchain.make_dir(str(tmp_path / "new"))
    assert stat.S_ISLNK(made.st_mode)
    assert made.st_ino != os.stat(elsewhere).st_ino
