"""What `iolab clean` and the next run say about one setting a killed run left changed
(runner.host_settings._leftover), over a tree of plain files: put back (or, dry, what would be); a device gone
or another one is left alone with why; a write refused says to try again as root and keeps its record open."""

from __future__ import annotations

import errno
import os

from iolab.probe.root import Root
from iolab.runner import host_settings
from iolab.runner.host_settings import _leftover, identity
from iolab.store.host_settings import SettingRecord

PATH = "/sys/block/sdz/queue/nr_requests"


def _tree(tmp_path) -> Root:
    queue = tmp_path / "sys/block/sdz/queue"
    queue.mkdir(parents=True)
    (queue / "nr_requests").write_text("64\n")
    (tmp_path / "sys/block/sdz/diskseq").write_text("9\n")
    (tmp_path / "proc/sys/kernel/random").mkdir(parents=True)
    (tmp_path / "proc/sys/kernel/random/boot_id").write_text("b1\n")
    return Root(tmp_path)


def _record(root: Root) -> SettingRecord:
    return SettingRecord(1, 4, PATH, identity(root, PATH) or "", "256", owner_running=False)


def test_a_killed_run_s_value_is_put_back_or_said_when_dry(tmp_path):
    root = _tree(tmp_path)
    assert _leftover(root, _record(root), dry_run=True) == (f"{PATH} = 256", "", False)
    assert (tmp_path / PATH.lstrip("/")).read_text() == "64\n"
    assert _leftover(root, _record(root), dry_run=False) == (f"{PATH} = 256", "", True)
    assert (tmp_path / PATH.lstrip("/")).read_text() == "256"
    assert _leftover(root, _record(root), dry_run=False) == ("", "", True)  # already back


def test_another_device_or_boot_is_left_alone(tmp_path):
    root = _tree(tmp_path)
    record = _record(root)
    (tmp_path / "sys/block/sdz/diskseq").write_text("10\n")
    assert _leftover(root, record, False) == (
        "",
        f"left {PATH} alone (the host restarted or the device is another one): a killed run's value is no longer there",
        True,
    )


def test_a_refused_write_says_to_try_again_as_root_and_keeps_the_record(tmp_path, monkeypatch):
    root = _tree(tmp_path)

    def refuse(root, path, value):  # type: ignore[no-untyped-def]
        raise OSError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(host_settings, "write_setting", refuse)
    assert _leftover(root, _record(root), False) == (
        "",
        f"could not put back {PATH} = 256: Permission denied; run `iolab clean` as root to try again",
        False,
    )
