"""fio's work directories (issue 30, item 7): recorded before they exist, swept only from the records.

The old sweep removed any `$TMPDIR/iolab-(point|phase)-<dead pid>-*` directory: a user's
`iolab-point-999999-mydata/` went with its files. The class is "removal decided by a name"; now the
only way to be removed is a record of a run no longer running whose device, inode and owner are still
the directory's. The generative test plants random look-alikes, links, files and recorded entries
(kept, replaced, swapped for links) and checks that exactly the intact recorded ones go.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import random
import shutil
import socket
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

from iolab.runner import scratch
from iolab.runner.workdirs import WORKDIR, Workdirs
from iolab.store.db import Store, open_store
from iolab.store.queries import open_scratch


@cache
def _dead_pid() -> int:
    """A pid that was a process and has exited (one is enough: nothing here depends on its number)."""
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], check=True, capture_output=True, text=True
    )
    return int(proc.stdout)


def _tree_digest(root: Path) -> str:
    """A checksum of every name, link and file content under `root` (the root itself included)."""
    digest = hashlib.sha256()
    for path in sorted([root, *root.rglob("*")]):
        digest.update(str(path.relative_to(root.parent)).encode())
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _killed_run(store: Store) -> int:
    """A run row as a SIGKILLed iolab leaves it: still 'running', its pid gone."""
    with store.conn:
        return store.conn.execute(
            "INSERT INTO runs (started_at, status, label, host, command, iolab_version, pid)"
            " VALUES (?, 'running', 'killed', ?, 'iolab run', '0', ?)",
            (time.time(), socket.gethostname(), _dead_pid()),
        ).lastrowid


def _recorded_workdir(store: Store, run_id: int, path: Path) -> None:
    """What Workdirs.made records for a directory a killed run made (and never removed)."""
    scratch_id = store.record_scratch(run_id, str(path), WORKDIR)
    path.mkdir(mode=0o700)
    (path / "fio.json").write_text("{}")
    info = os.lstat(path)
    store.scratch_created(scratch_id, info.st_dev, info.st_ino)


def _replace_directory(path: Path, data: bytes) -> None:
    """Another directory takes the recorded name (made while the old one exists, so it has another inode:
    a file system may give a just-freed inode number to the next directory, which no record can tell)."""
    other = path.with_name(path.name + ".new")
    other.mkdir()
    (other / "data").write_bytes(data)
    shutil.rmtree(path)
    other.rename(path)


def _user_directory(temporary: Path) -> tuple[Path, str]:
    """The issue's case: a user's directory that merely looks like a dead pid's work directory."""
    mine = temporary / "iolab-point-999999-mydata"
    (mine / "sub").mkdir(parents=True)
    (mine / "results.csv").write_bytes(os.urandom(4096))
    (mine / "sub" / "notes.txt").write_text("keep me\n")
    return mine, _tree_digest(mine)


def test_a_work_directory_is_recorded_before_use_and_removed_after(tmpdir_env):
    store = open_store()
    run_id = _killed_run(store)
    with Workdirs(store, run_id).made("point") as path:
        assert path.parent == tmpdir_env and path.name.startswith(f"iolab-point-{os.getpid()}-")
        (record,) = open_scratch(store)
        info = path.lstat()
        assert (record.path, record.kind, record.dev, record.ino) == (str(path), WORKDIR, info.st_dev, info.st_ino)
        (path / "fio.json").write_text("{}")
        fd = os.open(path, os.O_RDONLY)
        try:  # locked while in use: a sweep of another PID namespace leaves it
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    assert not path.exists() and open_scratch(store) == []
    store.close()


def test_a_directory_locked_by_a_live_iolab_of_another_pid_namespace_is_kept(tmpdir_env):
    store = open_store()
    running = tmpdir_env / "iolab-point-77-elsewhere"
    _recorded_workdir(store, _killed_run(store), running)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
            str(running),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        done = scratch.remove(store, scratch.leftovers(store))
        assert done.removed == [] and running.is_dir() and "in use by a running iolab" in done.kept[0]
    finally:
        holder.communicate("")
    assert scratch.remove(store, scratch.leftovers(store)).removed == [str(running)]
    store.close()


@pytest.mark.parametrize("seed", range(20))
def test_generated_directories_only_intact_recorded_ones_go(tmpdir_env, seed):
    """Random look-alikes (dead and live pids, odd suffixes), files and links under work-directory names,
    and recorded directories of killed runs, some then replaced, swapped for a link or a file, some never
    identified (killed between mkdir and the record of their inode; empty or not): the sweep removes exactly
    the recorded directories still intact and the empty unidentified ones, and every other tree is byte for
    byte kept."""
    rng = random.Random(seed)
    store = open_store()
    run_id = _killed_run(store)
    elsewhere = tmpdir_env.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "victim").write_bytes(rng.randbytes(2048))
    expected_gone: set[Path] = set()
    for i in range(rng.randint(3, 12)):
        name = f"iolab-{rng.choice(['point', 'phase'])}-{rng.choice([999999, _dead_pid(), os.getpid(), 1])}-{i}x"
        path = tmpdir_env / name
        recorded = rng.random() < 0.5
        if recorded and rng.random() < 0.25:  # its run killed between the mkdir and the record of its identity
            store.record_scratch(run_id, str(path), WORKDIR)
            path.mkdir(mode=0o700)
            if rng.random() < 0.5:
                expected_gone.add(path)  # empty: nothing in it can be lost
            else:
                (path / "data").write_bytes(rng.randbytes(rng.randint(1, 4096)))
            continue
        if recorded:
            _recorded_workdir(store, run_id, path)
            fate = rng.choice(["intact", "intact", "replaced", "link", "file"])
            if fate == "intact":
                expected_gone.add(path)
                continue
            if fate == "replaced":
                _replace_directory(path, rng.randbytes(rng.randint(0, 4096)))
                continue
            shutil.rmtree(path)
        else:
            fate = rng.choice(["replaced", "link", "file"])
        if fate == "replaced":
            path.mkdir()
            (path / "data").write_bytes(rng.randbytes(rng.randint(0, 4096)))
        elif fate == "link":
            path.symlink_to(elsewhere)
        else:
            path.write_bytes(rng.randbytes(64))
    kept = {p: _tree_digest(p) if p.is_dir() and not p.is_symlink() else p.lstat() for p in tmpdir_env.iterdir()}
    kept = {p: v for p, v in kept.items() if p not in expected_gone}
    victim = _tree_digest(elsewhere)
    done = scratch.remove(store, scratch.leftovers(store))
    assert {Path(p) for p in done.removed} == expected_gone
    assert not any(p.exists() for p in expected_gone)
    for path, before in kept.items():
        after = _tree_digest(path) if isinstance(before, str) else path.lstat()
        assert after == before, path
    assert _tree_digest(elsewhere) == victim
    store.close()


def test_an_unidentified_directory_filled_after_it_was_judged_empty_is_kept_whole(tmpdir_env, monkeypatch):
    """The sweep judges an unidentified work directory empty, then removes it with rmdir, never rmtree: one
    filled in between (here: judged empty while it holds data) keeps every byte and is named."""
    store = open_store()
    path = tmpdir_env / "iolab-point-1-unidentified"
    store.record_scratch(_killed_run(store), str(path), WORKDIR)
    path.mkdir(mode=0o700)
    (path / "data").write_bytes(b"x" * 4096)
    before = _tree_digest(path)
    monkeypatch.setattr(scratch, "_empty", lambda _path: True)
    done = scratch.remove(store, scratch.leftovers(store))
    assert done.removed == [] and _tree_digest(path) == before
    assert "never recorded, and it is not empty" in done.kept[0]
    store.close()
