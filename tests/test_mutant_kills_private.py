"""Files iolab writes for its user alone are readable and writable by that user only (0600), whatever the
umask (issue 41 item 8: `bench/mutation.py --whole` found no fast test holding the mode)."""

from __future__ import annotations

import os
import stat

from iolab.private import PRIVATE_DIR, private_dir, write_private


def test_a_private_file_is_0600_and_its_directory_0700_under_a_permissive_umask(tmp_path):
    old = os.umask(0)
    try:
        folder = private_dir(tmp_path / "home")
        write_private(folder / "notes.txt", "mine")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(folder / "notes.txt").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(folder).st_mode) == PRIVATE_DIR == 0o700
    assert (folder / "notes.txt").read_text() == "mine"


def test_a_target_s_lock_file_is_private_too(tmp_path):
    """A lock names the run that holds a target: readable by its user only, like every file of iolab's home."""
    from iolab.models import Target
    from iolab.runner.locks import TargetLocks

    locks = TargetLocks(tmp_path / "home")
    old = os.umask(0)
    try:
        locks.acquire([Target("/scratch/a", "file", "/scratch/a", 1 << 20)], "run 1")
    finally:
        os.umask(old)
        locks.release()
    (made,) = (tmp_path / "home" / "locks").iterdir()
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o600
