"""Removing a killed run's recorded scratch: only what is still the file or directory iolab created goes; a link,
another owner's file, a replaced directory or a file a job named and someone replaced is kept and named; a path
already gone closes its record; a dry run changes nothing."""

from __future__ import annotations

import os
from pathlib import Path

from iolab.runner import scratch
from iolab.store.db import Store, open_store
from iolab.store.queries import open_scratch
from tests.runner.test_workdirs import _killed_run


def _record(store: Store, run_id: int, path: Path, kind: str, make=None) -> None:
    scratch_id = store.record_scratch(run_id, str(path), kind)
    if make is not None:
        make(path)
        info = os.lstat(path)
        store.scratch_created(scratch_id, info.st_dev, info.st_ino)


def _file(path: Path) -> None:
    path.write_bytes(b"\0" * 4096)


def _dir(path: Path) -> None:
    path.mkdir()
    (path / "inside").write_text("x")


def test_only_what_is_still_iolab_s_goes_and_every_other_path_is_named(tmp_path):
    store = open_store()
    run = _killed_run(store)
    ours = tmp_path / "iolab-scratch-0a1b2c.dat"
    _record(store, run, ours, "file", _file)
    named = tmp_path / "data.bin"  # a file a job named: only the very file iolab made
    _record(store, run, named, "file", _file)
    (tmp_path / "new").write_text("the user's own, made since")  # made first: another inode
    (tmp_path / "new").rename(named)
    theirs = tmp_path / "iolab-scratch-3d4e5f.dat"
    _record(store, run, theirs, "file", _file)
    os.chown(theirs, 65534, 65534)
    linked = tmp_path / "iolab-scratch-6a7b8c.dat"
    _record(store, run, linked, "file", _file)
    linked.unlink()
    linked.symlink_to(ours)
    folder = tmp_path / "iolab-metadata-9d.dir"
    _record(store, run, folder, "dir", _dir)
    swapped = tmp_path / "iolab-scratch-e0.files"
    _record(store, run, swapped, "dir", _dir)
    _dir(tmp_path / "other")  # made first: another inode
    (swapped / "inside").unlink()
    swapped.rmdir()
    (tmp_path / "other").rename(swapped)
    gone = tmp_path / "iolab-scratch-f1.dat"
    _record(store, run, gone, "file")  # recorded, never made

    dry = scratch.remove(store, scratch.leftovers(store), dry_run=True)
    assert dry.removed == [str(ours), str(folder)] and ours.exists() and folder.exists()
    assert len(open_scratch(store)) == 7

    done = scratch.remove(store, scratch.leftovers(store))
    assert done.removed == [str(ours), str(folder)] and not ours.exists() and not folder.exists()
    assert done.kept == [
        f"{named} (not the file iolab created (replaced, or never made))",
        f"{theirs} (not created by iolab)",
        f"{linked} (no longer the file iolab created)",
        f"{swapped} (replaced since iolab created it)",
    ]
    assert named.read_text() == "the user's own, made since" and (swapped / "inside").exists()
    assert sorted(r.path for r in open_scratch(store)) == sorted(map(str, [named, theirs, linked, swapped]))
    store.close()
