"""Putting back one host setting (runner.host_settings.put_back), over a tree of plain files standing in for
sysfs: a file that holds its original is left alone; one that is gone is said once and not retried; a write
the kernel refuses is said and retried later (`iolab clean`); a kernel that keeps another value is said."""

from __future__ import annotations

import errno
import os

from iolab.probe.root import Root
from iolab.runner import host_settings
from iolab.runner.host_settings import put_back

PATH = "/sys/block/sdz/queue/nr_requests"


def _tree(tmp_path, value: str | None) -> Root:
    file = tmp_path / PATH.lstrip("/")
    file.parent.mkdir(parents=True)
    if value is not None:
        file.write_text(value + "\n")
    return Root(tmp_path)


def test_a_changed_value_is_written_back_and_one_already_there_left_alone(tmp_path, monkeypatch):
    root = _tree(tmp_path, "64")
    assert put_back(root, PATH, "256") == ("", False)
    assert (tmp_path / PATH.lstrip("/")).read_text() == "256"
    monkeypatch.setattr(host_settings, "write_setting", lambda *a: (_ for _ in ()).throw(AssertionError("written")))
    assert put_back(root, PATH, "256") == ("", False)  # already there: not written


def test_a_gone_file_is_said_once_and_not_retried(tmp_path):
    assert put_back(_tree(tmp_path, None), PATH, "256") == (f"{PATH} is gone: nothing to put back", False)


def test_a_refused_write_is_said_and_retried_later(tmp_path, monkeypatch):
    def refuse(root, path, value):  # type: ignore[no-untyped-def]
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))

    monkeypatch.setattr(host_settings, "write_setting", refuse)
    assert put_back(_tree(tmp_path, "64"), PATH, "256") == (
        f"could not put back {PATH} = 256: Device or resource busy",
        True,
    )


def test_a_kernel_keeping_another_value_is_said_and_not_retried(tmp_path, monkeypatch):
    monkeypatch.setattr(host_settings, "write_setting", lambda root, path, value: None)  # takes it, keeps 64
    assert put_back(_tree(tmp_path, "64"), PATH, "256") == (f"{PATH} reads 64 after writing back 256", False)
