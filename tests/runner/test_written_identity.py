"""After each fio run, what fio wrote by name must be what iolab created (`scratch.written_elsewhere`): looked up
again from `/` without links, by device and inode. Each way a name can come to mean another file is one case;
so are the two changes fio itself makes (a workload's `unlink`, and the file laid out again after it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iolab.runner import scratch
from iolab.runner.targets import resolve_target
from iolab.store.db import open_store


@pytest.fixture
def made(tmp_path, iolab_home):
    """A directory target, its scratch file made as a run makes it; (store, run id, target, file path)."""
    store = open_store(iolab_home)
    directory = tmp_path / "work"
    directory.mkdir()
    target = resolve_target(str(directory), scratch=1 << 20)
    run_id = store.create_run("p", "iolab run", [str(directory)], "fio-3.33", {}, "x")
    scratch.create_file(store, run_id, target.filename)
    yield store, run_id, target, Path(target.filename)
    store.close()


def _swap(path: Path, replacement) -> None:
    os.rename(path, path.with_name(path.name + ".old"))
    replacement(path)


def test_the_file_iolab_made_passes_and_so_do_fios_own_unlink_and_layout(made):
    store, run_id, target, path = made
    assert scratch.written_elsewhere(store, run_id, [target]) is None
    path.unlink()  # a workload's unlink=1
    assert scratch.written_elsewhere(store, run_id, [target]) is None
    path.write_bytes(b"\0" * 4096)  # fio lays it out again for the next point: a new regular file of yours
    assert scratch.written_elsewhere(store, run_id, [target]) is None


def test_a_link_in_the_files_place_is_named(made, tmp_path):
    store, run_id, target, path = made
    victim = tmp_path / "victim"
    victim.write_text("root's")
    path.unlink()
    path.symlink_to(victim)
    assert "is a link now" in (scratch.written_elsewhere(store, run_id, [target]) or "")


def test_a_hard_link_to_another_file_in_its_place_is_named(made, tmp_path):
    store, run_id, target, path = made
    victim = tmp_path / "victim"
    victim.write_text("root's")
    _swap(path, lambda p: os.link(victim, p))
    assert "is not the file iolab created" in (scratch.written_elsewhere(store, run_id, [target]) or "")


def test_its_directory_swapped_for_a_link_or_another_directory_is_named(made, tmp_path):
    store, run_id, target, path = made
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / path.name).write_bytes(b"")
    work = path.parent
    _swap(work, lambda p: p.symlink_to(elsewhere))
    assert "is not a directory" in (scratch.written_elsewhere(store, run_id, [target]) or "")
    work.unlink()
    elsewhere.rename(work)  # a real directory now, with a file of the same name: not the one checked
    assert "is not the directory iolab checked" in (scratch.written_elsewhere(store, run_id, [target]) or "")
