"""A fio work directory that cannot be removed when its fio run ends (runner.workdirs.Workdirs.made): the run
goes on, and the directory is left with its record open, so the next sweep or `iolab clean` tries it again
and names it; one that is removed has its record closed."""

from __future__ import annotations

import errno
import os
import shutil

from iolab.store.queries import open_scratch


def test_a_work_directory_that_cannot_be_removed_is_left_with_its_record_open(workdirs, monkeypatch):
    unlink = os.unlink

    def refusing(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        if os.fspath(name) == "stuck":  # a file the file system will not let go of (EPERM, EBUSY, a read-only remount)
            raise PermissionError(errno.EPERM, "Operation not permitted", name)
        return unlink(name, *args, **kwargs)

    with workdirs.made("point") as path:
        (path / "fio.json").write_text("{}")
        (path / "stuck").write_text("")
        monkeypatch.setattr(os, "unlink", refusing)
    monkeypatch.undo()
    try:
        assert path.is_dir() and not (path / "fio.json").exists()  # what could go, went
        (record,) = open_scratch(workdirs.store, workdirs.run_id)
        assert record.path == str(path)
    finally:
        shutil.rmtree(path)
    with workdirs.made("phase") as removed:
        pass
    assert not removed.exists() and [r.path for r in open_scratch(workdirs.store)] == [str(path)]
