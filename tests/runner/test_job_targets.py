"""A job's own file and size, as a job file writes them: what iolab makes, how large, and what it refuses.

Unit tests of `resolve_target` and the scratch records of a job's file; no fio runs here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.runner import scratch
from iolab.runner.targets import resolve_target
from iolab.store.db import open_store
from iolab.store.queries import open_scratch


def test_a_file_a_job_names_that_does_not_exist_is_made_at_the_jobs_size(tmp_path):
    new = tmp_path / "mine.dat"
    target = resolve_target(str(new), create=True, scratch=16 << 20)
    assert (target.kind, target.filename, target.size_bytes) == ("file", str(new), 16 << 20)
    assert target.scratch and target.writable and not new.exists()  # made by the run, recorded first
    assert target.identity_filename == str(new)  # its own name, not the scratch file's stand-in
    with pytest.raises(UserError, match="no such file, directory or device"):
        resolve_target(str(new), scratch=16 << 20)  # a command-line target is never made: a typo stays one


@pytest.mark.parametrize(
    ("path", "size", "message"),
    [
        ("/dev/iolab-no-such-device", 1 << 20, "makes no new files under /dev"),
        ("{tmp}/no-dir/mine.dat", 1 << 20, "does not exist"),
        ("{tmp}/mine.dat", None, "give the job a size="),
        ("{tmp}/dangling", 1 << 20, "no such file, directory or device"),
    ],
)
def test_a_new_file_is_refused_where_fio_would_make_it_unasked(tmp_path, path, size, message):
    (tmp_path / "dangling").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UserError, match=message):
        resolve_target(path.format(tmp=tmp_path), create=True, scratch=size)
    assert not (tmp_path / "elsewhere").exists()


def test_an_existing_file_is_used_as_it_is_whatever_the_jobs_size(tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(b"x" * 8192)
    target = resolve_target(str(data), create=True, scratch=1 << 30)
    assert (target.size_bytes, target.scratch, target.writable) == (8192, False, False)


def test_a_jobs_file_is_removed_only_while_it_is_the_very_file_iolab_made(tmp_path, iolab_home):
    store = open_store()
    run_id = store.create_run("j", "", [str(tmp_path)], "fio-3.33")
    kept, removed = tmp_path / "kept.dat", tmp_path / "removed.dat"
    for path in (kept, removed):
        scratch.create_file(store, run_id, str(path), 1 << 20)
        assert path.stat().st_size == 1 << 20
    other = tmp_path / "other.dat"
    other.write_text("someone else's file now, under the same name")
    os.replace(other, kept)  # a new inode (an unlinked one may be reused at once: dev and inode cannot tell)
    done = scratch.remove(store, open_scratch(store, run_id))
    assert done.removed == [str(removed)] and not removed.exists()
    assert kept.read_text().startswith("someone else's") and len(done.kept) == 1
    assert "not the file iolab created" in done.kept[0]
    assert os.path.exists(kept)


def test_a_new_file_is_never_made_through_something_planted_at_its_name(tmp_path, iolab_home):
    store = open_store()
    run_id = store.create_run("j", "", [str(tmp_path)], "fio-3.33")
    planted = tmp_path / "mine.dat"
    planted.symlink_to(tmp_path / "victim")
    with pytest.raises(UserError, match="already exists"):
        scratch.create_file(store, run_id, str(planted), 1 << 20)
    assert not (tmp_path / "victim").exists() and open_scratch(store, run_id) == []
    assert Path(planted).is_symlink()


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        ("metadata", "the metadata preset runs on one host"),
        ("per-job", "runs on one host"),
    ],
)
def test_work_in_directories_iolab_makes_here_is_refused_on_many_hosts_before_any_is_contacted(tmp_path, plan, message):
    from iolab.runner.execute import _start_executor
    from iolab.runner.request import RunRequest, build_plan

    if plan == "per-job":
        path = tmp_path / "p.toml"
        path.write_text('files = "per-job"\n[options]\nrw = "read"\n')
        plan = str(path)
    request = RunRequest(plan=plan, targets=[str(tmp_path)], hosts=[{"name": "unreachable.invalid"}])
    with pytest.raises(UserError, match=message):
        _start_executor(request, build_plan(request), "fio-3.33")
