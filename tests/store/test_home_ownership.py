"""Item 8 of the safety issue: a home that is yours. A foreign or shared-writable IOLAB_HOME is refused
(exit 2, the chown/chmod that fixes it) before iolab reads a row that could name a file to delete."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.store.db import home_dir, open_store
from tests.iolab_cli import assert_clean_error, iolab

OTHER_UID = 54321  # no such user needed: root can chown to any uid
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a home to another uid needs root")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _home_with_planted_scratch_row(home: Path, victim: Path) -> None:
    """What the issue's other user did: a store whose killed run 'left' a scratch path naming `victim`."""
    store = open_store(home)
    with store.conn:
        run_id = store.conn.execute(
            "INSERT INTO runs (started_at, status, label, host, command, iolab_version, pid)"
            " VALUES (?, 'running', 'x', ?, 'iolab run', '0', 999999)",
            (time.time(), os.uname().nodename),
        ).lastrowid
    scratch_id = store.record_scratch(run_id, str(victim), "file")
    info = victim.stat()
    store.scratch_created(scratch_id, info.st_dev, info.st_ino)
    store.close()


@as_root
@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_a_foreign_world_writable_home_is_refused_and_its_planted_row_deletes_nothing(tmp_path, monkeypatch):
    victim = tmp_path / "root-owned.dat"
    victim.write_bytes(os.urandom(1 << 16))
    before = _digest(victim)
    home = tmp_path / "their-home"
    _home_with_planted_scratch_row(home, victim)
    for path in [home, *home.iterdir()]:
        os.chown(path, OTHER_UID, OTHER_UID)
    home.chmod(0o777)
    monkeypatch.setenv("IOLAB_HOME", str(home))
    target = tmp_path / "target"
    target.mkdir()
    proc = iolab("run", str(target), "--runtime", "1", "--ramp", "0", "--size", "1M")
    message = assert_clean_error(proc, 2)
    assert "owned by uid 54321" in message and f"chown {os.geteuid()}" in message and "chmod go-w" in message
    assert victim.exists() and _digest(victim) == before
    assert iolab("clean").returncode == 2 and _digest(victim) == before


@as_root
def test_a_home_of_another_uid_is_refused_naming_the_chown(tmp_path):
    home = tmp_path / "home"
    open_store(home).close()
    os.chown(home, OTHER_UID, -1)
    with pytest.raises(UserError, match=rf"owned by uid {OTHER_UID}.*chown {os.geteuid()} "):
        open_store(home)


@as_root
def test_a_database_of_another_uid_is_refused(tmp_path):
    home = tmp_path / "home"
    open_store(home).close()
    os.chown(home / "iolab.db", OTHER_UID, -1)
    with pytest.raises(UserError, match=r"the iolab database .* owned by uid"):
        open_store(home)


@pytest.mark.parametrize("mode", [0o770, 0o777, 0o702])
def test_a_home_others_may_write_is_refused_naming_the_chmod(tmp_path, mode):
    home = tmp_path / "home"
    open_store(home).close()
    home.chmod(mode)
    with pytest.raises(UserError, match=r"writable by .*chmod go-w"):
        open_store(home)


def test_a_shared_database_file_is_refused(tmp_path):
    home = tmp_path / "home"
    open_store(home).close()
    (home / "iolab.db").chmod(0o666)
    with pytest.raises(UserError, match=r"the iolab database .*writable by group and others"):
        open_store(home)


def test_a_foreign_home_is_still_readable_but_only_read_only(tmp_path):
    home = tmp_path / "home"
    open_store(home).close()
    home.chmod(0o777)
    store = open_store(home, for_reading=True)
    assert store.read_only
    store.close()


def test_own_private_homes_open_as_before(tmp_path):
    home = tmp_path / "new" / "home"
    open_store(home).close()
    home.chmod(0o755)  # readable by others is fine, as for ~/.ssh: only writing is someone else's power
    store = open_store(home)
    assert not store.read_only
    store.close()


@as_root  # as root every mode opens: only ownership and others' write can refuse
def test_every_home_mode_is_refused_exactly_when_group_or_others_may_write(tmp_path):
    """The property behind the cases above, over all 512 modes of the home: refused iff g+w or o+w."""
    home = tmp_path / "home"
    open_store(home).close()
    wrong = []
    for mode in range(0o1000):
        home.chmod(mode)
        try:
            open_store(home).close()
            refused = False
        except UserError as exc:
            refused = "writable by" in str(exc)
        if refused != bool(mode & 0o022):
            wrong.append(oct(mode))
    home.chmod(0o700)
    assert wrong == []


@pytest.mark.parametrize("value", ["", "relative/home", "./home", "/tmp/a\nb", "/tmp/\x1b[2J", "/tmp/\x7f"])
def test_an_empty_relative_or_control_character_home_is_refused(value, monkeypatch):
    """Issue 39: an empty IOLAB_HOME used to mean the default and a relative one wherever the command started."""
    monkeypatch.setenv("IOLAB_HOME", value)
    with pytest.raises(UserError, match="IOLAB_HOME is .*give an absolute path without control characters"):
        home_dir()


@as_root
def test_a_home_under_another_users_directory_is_refused_even_when_the_home_is_yours(tmp_path):
    """Issue 39: the home and every directory above it (ssh's StrictModes), not the home alone."""
    theirs = tmp_path / "theirs"
    home = theirs / "home"
    home.mkdir(parents=True, mode=0o700)
    os.chown(theirs, OTHER_UID, OTHER_UID)
    with pytest.raises(UserError, match=f"{theirs} is owned by uid {OTHER_UID}"):
        open_store(home)
    assert os.listdir(home) == []
