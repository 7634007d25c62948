"""fio's work directories as `iolab clean` and `iolab run` treat them (end to end: the iolab command and fio; the
recording, the lock and the sweep are unit-tested in test_workdirs.py)."""

from __future__ import annotations

import os
import shutil

import pytest

from iolab.store.db import open_store
from iolab.store.queries import open_scratch
from tests.iolab_cli import iolab
from tests.runner.test_workdirs import (
    _dead_pid,
    _killed_run,
    _recorded_workdir,
    _replace_directory,
    _tree_digest,
    _user_directory,
)


def test_clean_removes_a_killed_runs_recorded_directory_and_never_a_look_alike(tmpdir_env):
    store = open_store()
    left = tmpdir_env / f"iolab-point-{_dead_pid()}-0a1b2c3d4e5f"
    _recorded_workdir(store, _killed_run(store), left)
    store.close()
    mine, before = _user_directory(tmpdir_env)
    dry = iolab("clean", "--dry-run")
    assert dry.returncode == 0 and f"would remove {left}" in dry.stdout and "mydata" not in dry.stdout
    assert left.is_dir()
    proc = iolab("clean")
    assert proc.returncode == 0, proc.stderr
    assert f"removed {left}" in proc.stdout and not left.exists()
    assert mine.is_dir() and _tree_digest(mine) == before


def test_a_recorded_directory_whose_inode_changed_is_kept_and_named(tmpdir_env):
    store = open_store()
    replaced = tmpdir_env / "iolab-phase-4242-0a1b2c3d4e5f"
    _recorded_workdir(store, _killed_run(store), replaced)
    store.close()
    _replace_directory(replaced, os.urandom(1024))
    before = _tree_digest(replaced)
    proc = iolab("clean")
    assert proc.returncode == 0, proc.stderr
    assert f"left in place, not iolab's to remove: {replaced}" in proc.stdout and "inode" in proc.stdout
    assert _tree_digest(replaced) == before


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_a_run_leaves_a_look_alike_user_directory_alone(tmpdir_env, tmp_path):
    mine, before = _user_directory(tmpdir_env)
    job = tmp_path / "one.fio"
    job.write_text("[j]\nioengine=psync\nrw=randread\nbs=4k\nsize=1M\ntime_based=1\nruntime=1\n")
    target = tmp_path / "dir"
    target.mkdir()
    proc = iolab("run", str(job), str(target), "--size", "1M", "--runtime", "1", "--ramp", "0")
    assert proc.returncode == 0, proc.stderr
    assert mine.is_dir() and _tree_digest(mine) == before
    assert [p.name for p in tmpdir_env.iterdir()] == [mine.name]  # the run's own directories are gone
    store = open_store()
    assert open_scratch(store) == []  # and each record closed
    store.close()
