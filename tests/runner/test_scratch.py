"""iolab writes and removes only what it created: scratch names, exclusive creation, records, clean, locks.

Cases 4-7 of the safety issue, each checked by the sha256 of the data a
run must not touch, on real loop devices and files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.runner import scratch
from iolab.store.db import open_store
from iolab.store.queries import open_scratch
from tests import in_process
from tests.iolab_cli import assert_clean_error, iolab
from tests.loopdev import loop_devices, loop_skip_reason

needs_loop = pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
FAST = ["--runtime", "1", "--ramp", "0", "--size", "64M"]
WRITE_PLAN = """name = "w"
[options]
time_based = true
[[workloads]]
name = "seqwrite"
options = { rw = "write", bs = "1m", iodepth = 4, ioengine = "libaio" }
"""


def _digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _scratch_names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(("iolab-scratch-", "iolab-metadata-")))


@pytest.fixture
def write_plan(tmp_path) -> Path:
    plan = tmp_path / "w.toml"
    plan.write_text(WRITE_PLAN)
    return plan


@needs_loop
def test_case4_a_symlink_under_the_old_scratch_name_is_never_followed(tmp_path, write_plan):
    target = tmp_path / "target"
    target.mkdir()
    victim = tmp_path / "victim.dat"
    victim.write_bytes(os.urandom(1 << 20))
    with loop_devices(1, size_mib=32) as (dev,):
        Path(dev.backing).write_bytes(os.urandom(1 << 20))
        before = (_digest(victim), _digest(dev.backing))
        (target / "iolab-scratch.dat").symlink_to(dev.path)
        (target / "iolab-metadata").symlink_to(victim.parent)
        done = iolab("run", str(write_plan), str(target), *FAST)
        assert done.returncode == 0, done.stderr
        assert (_digest(victim), _digest(dev.backing)) == before
    assert (target / "iolab-scratch.dat").is_symlink() and (target / "iolab-metadata").is_symlink()
    assert _scratch_names(target) == []


def test_case4_exclusive_creation_refuses_whatever_is_there(tmp_path, iolab_home):
    """A name nobody could guess is still created with O_EXCL|O_NOFOLLOW: a link or file there stops the run."""
    store = open_store(iolab_home)
    run_id = store.create_run("p", "iolab run", [str(tmp_path)], "fio-3.33", {}, "x")
    victim = tmp_path / "victim"
    victim.write_text("data")
    link = tmp_path / "iolab-scratch-0123456789ab.dat"
    link.symlink_to(victim)
    with pytest.raises(UserError, match="already exists"):
        scratch.create_file(store, run_id, str(link))
    (tmp_path / "iolab-metadata-0123456789ab").mkdir()
    with pytest.raises(UserError, match="already exists"):
        scratch.create_dir(store, run_id, tmp_path / "iolab-metadata-0123456789ab")
    assert victim.read_text() == "data" and open_scratch(store, run_id) == []


@needs_fio
def test_case5_a_users_own_iolab_scratch_file_is_kept(tmp_path, write_plan):
    target = tmp_path / "target"
    target.mkdir()
    mine = target / "iolab-scratch.dat"
    mine.write_bytes(os.urandom(1 << 20))
    before = _digest(mine)
    done = iolab("run", str(write_plan), str(target), *FAST)
    assert done.returncode == 0, done.stderr
    assert _digest(mine) == before
    assert _scratch_names(target) == []  # iolab's own file, and only it, is gone


@needs_fio
def test_case6_an_existing_metadata_directory_is_untouched(tmp_path):
    target = tmp_path / "target"
    (target / "iolab-metadata").mkdir(parents=True)
    (target / "iolab-metadata" / "notes.txt").write_text("mine")
    plan = tmp_path / "md.toml"
    plan.write_text(
        'name = "md"\n[[workloads]]\nname = "create"\noptions = { ioengine = "filecreate", nrfiles = 50, '
        'filesize = "4k", numjobs = 1, openfiles = 1 }\n'
    )
    done = iolab("run", str(plan), str(target), "--runtime", "1")
    assert done.returncode == 0, done.stderr
    assert (target / "iolab-metadata" / "notes.txt").read_text() == "mine"
    assert _scratch_names(target) == []


@needs_fio
def test_case7_allow_write_on_an_existing_file_is_refused(tmp_path, write_plan):
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(4 << 20))
    before = _digest(data)
    message = assert_clean_error(iolab("run", str(write_plan), str(data), "--allow-write", *FAST))
    assert "never writes to a file it did not create" in message
    read = iolab("run", str(data), "--runtime", "1", "--ramp", "0")  # reading it is fine
    assert read.returncode == 0, read.stderr
    assert _digest(data) == before


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "iolab", "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_running(home: Path, proc: subprocess.Popen) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            with sqlite3.connect(home / "iolab.db", timeout=5) as conn:
                row = conn.execute(
                    "SELECT r.id FROM runs r JOIN scratch s ON s.run_id = r.id "
                    "WHERE r.status = 'running' AND s.dev IS NOT NULL"
                ).fetchone()
        except sqlite3.OperationalError:  # no database or schema yet
            row = None
        if row:
            return row[0]
        time.sleep(0.1)
    raise AssertionError("the run did not start")


@needs_fio
def test_a_second_run_on_the_same_target_and_a_resume_of_a_live_run_are_refused(tmp_path, iolab_home):
    target = tmp_path / "target"
    target.mkdir()
    first = _start(str(target), "--runtime", "3", "--ramp", "0", "--size", "64M")
    try:
        run_id = _wait_running(iolab_home, first)
        busy = assert_clean_error(iolab("run", str(target), *FAST))
        assert f"in use by run {run_id}" in busy
        live = assert_clean_error(iolab("run", "--resume", str(run_id)))
        assert "still running" in live
    finally:
        first.kill()
        first.wait()
    assert len(json.loads(in_process.iolab("ls", "--json").stdout)) == 1  # the refused runs made no run


@needs_fio
def test_clean_removes_what_a_killed_run_left_and_nothing_else(tmp_path, iolab_home):
    target = tmp_path / "target"
    target.mkdir()
    proc = _start(str(target), "--runtime", "1", "--ramp", "0", "--size", "64M")
    run_id = _wait_running(iolab_home, proc)
    proc.kill()
    proc.wait()
    (left,) = _scratch_names(target)
    lookalike = target / "iolab-scratch-feedfacecafe.dat"  # named like iolab's, never recorded
    lookalike.write_text("not iolab's")

    dry = iolab("clean", "--dry-run")
    assert dry.returncode == 0 and f"would remove {target / left}" in dry.stdout
    assert (target / left).exists()
    done = iolab("clean")
    assert done.returncode == 0 and f"removed {target / left}" in done.stdout
    assert _scratch_names(target) == [lookalike.name] and lookalike.read_text() == "not iolab's"
    assert "nothing to clean" in iolab("clean").stdout

    resumed = iolab("run", "--resume", str(run_id), timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    (run,) = json.loads(in_process.iolab("ls", "--json").stdout)
    assert run["status"] == "complete" and run["points_done"] == run["points_planned"]
    assert _scratch_names(target) == [lookalike.name]


def test_a_recorded_file_replaced_by_a_link_is_left_alone(tmp_path, iolab_home):
    store = open_store(iolab_home)
    run_id = store.create_run("p", "iolab run", [str(tmp_path)], "fio-3.33", {}, "x")
    path = scratch.scratch_filename(tmp_path)
    scratch.create_file(store, run_id, path)
    os.unlink(path)
    victim = tmp_path / "victim"
    victim.write_text("data")
    os.symlink(victim, path)
    store.finish_run(run_id, "failed", "")
    done = scratch.remove(store, scratch.leftovers(store))
    assert done.removed == [] and "no longer the file iolab created" in done.kept[0]
    assert os.path.islink(path) and victim.read_text() == "data"
