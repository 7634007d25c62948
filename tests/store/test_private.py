"""What iolab keeps is its user's alone: IOLAB_HOME 0700, database and reports 0600, no symlink followed."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from iolab.private import write_private
from iolab.store.db import open_store
from tests.iolab_cli import iolab

JOB = "[j]\nioengine=psync\nrw=randread\nbs=4k\nsize=1M\ntime_based=1\nruntime=1\n"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_home_and_database_are_private_from_the_start(tmp_path, monkeypatch):
    home = tmp_path / "new" / "iolab"
    monkeypatch.setenv("IOLAB_HOME", str(home))
    os.umask(0o022)  # the usual umask: files would be 0644 without iolab's care
    store = open_store()
    store.conn.execute("CREATE TABLE IF NOT EXISTS probe (x)")  # a write, so -wal and -shm exist
    assert mode(home) == 0o700
    for name in ("iolab.db", "iolab.db-wal", "iolab.db-shm"):
        assert mode(home / name) == 0o600, name
    store.close()


def test_a_database_an_older_version_left_readable_is_narrowed(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    sqlite3.connect(home / "iolab.db").close()
    (home / "iolab.db").chmod(0o644)
    open_store(home).close()
    assert mode(home / "iolab.db") == 0o600


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_run_report_and_exports_are_private(tmp_path, iolab_home):
    job = tmp_path / "one.fio"
    job.write_text(JOB)
    target = tmp_path / "dir"
    target.mkdir()
    proc = iolab("run", str(job), str(target), "--size", "1M", "--report")
    assert proc.returncode == 0, proc.stderr
    assert mode(iolab_home) == 0o700 and mode(iolab_home / "reports") == 0o700
    assert mode(iolab_home / "reports" / "run-1.html") == 0o600
    # A symlink another user planted where the report goes is replaced, never written through.
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    out = tmp_path / "out.html"
    out.symlink_to(victim)
    assert iolab("report", "1", "--html", str(out)).returncode == 0
    assert victim.read_text() == "keep me\n" and not out.is_symlink() and mode(out) == 0o600
    assert iolab("export", "--csv", str(tmp_path / "a.csv"), "--json", str(tmp_path / "a.json")).returncode == 0
    assert mode(tmp_path / "a.csv") == mode(tmp_path / "a.json") == 0o600


def test_write_private_replaces_whole_or_leaves_the_old_file(tmp_path):
    path = tmp_path / "f"
    path.write_text("old")
    write_private(path, "new")
    assert path.read_text() == "new" and mode(path) == 0o600
    write_private(path, b"metrics", mode=0o644)
    assert path.read_bytes() == b"metrics" and mode(path) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]  # no temporary left behind
