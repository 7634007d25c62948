"""A work directory replaced while its fio ran is not iolab's to remove: the block's end leaves it and its record
open (for `iolab clean` to name); one that cannot be made says so and closes its record."""

from __future__ import annotations

import errno
import os
import shutil

import pytest

from iolab.errors import UserError
from iolab.runner import workdirs
from iolab.runner.workdirs import Workdirs, locked
from iolab.store.db import open_store
from iolab.store.queries import open_scratch
from tests.runner.test_workdirs import _killed_run


def test_a_directory_swapped_in_under_the_recorded_name_is_left_with_its_record(tmpdir_env):
    store = open_store()
    run_id = _killed_run(store)
    with Workdirs(store, run_id).made("phase") as path:
        assert path.name.startswith(f"iolab-phase-{os.getpid()}-") and locked(str(path))
        shutil.rmtree(path)
        path.mkdir()  # another directory now: same name, another inode
        (path / "theirs").write_text("keep")
    assert (path / "theirs").read_text() == "keep"
    (record,) = open_scratch(store)
    assert record.path == str(path)
    store.close()


def test_a_link_put_in_its_place_is_neither_followed_nor_removed(tmpdir_env, tmp_path):
    store = open_store()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "data").write_text("keep")
    with Workdirs(store, _killed_run(store)).made("point") as path:
        shutil.rmtree(path)
        path.symlink_to(elsewhere)
    assert path.is_symlink() and (elsewhere / "data").read_text() == "keep"
    assert len(open_scratch(store)) == 1
    store.close()


def test_a_directory_removed_by_someone_else_has_its_record_closed(tmpdir_env):
    store = open_store()
    with Workdirs(store, _killed_run(store)).made("point") as path:
        shutil.rmtree(path)
    assert open_scratch(store) == []
    store.close()


def test_a_work_directory_that_cannot_be_made_says_so_and_leaves_no_record(tmpdir_env, monkeypatch):
    store = open_store()

    def full(path: str, mode: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(workdirs.pathchain, "make_dir", full)
    with pytest.raises(
        UserError,
        match=f"^cannot create fio's work directory {tmpdir_env}/iolab-point-[0-9]+-[0-9a-f]{{12}}: No space left on device; set TMPDIR$",
    ):
        with Workdirs(store, _killed_run(store)).made("point"):
            pass
    assert open_scratch(store) == []

    def refused(path: str, mode: int) -> None:
        raise UserError("refused")

    monkeypatch.setattr(workdirs.pathchain, "make_dir", refused)
    with pytest.raises(UserError, match="^refused$"):
        with Workdirs(store, _killed_run(store)).made("point"):
            pass
    assert open_scratch(store) == []
    store.close()


def test_a_free_directory_is_not_locked_and_a_path_that_is_no_directory_counts_as_held(tmp_path):
    free = tmp_path / "free"
    free.mkdir()
    assert not locked(str(free))
    (tmp_path / "file").write_text("")
    assert locked(str(tmp_path / "file")) and locked(str(tmp_path / "missing"))
    (tmp_path / "link").symlink_to(free)
    assert locked(str(tmp_path / "link"))
