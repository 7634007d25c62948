"""fio's temporary work directories: what a killed iolab left is swept, and nothing else is."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

import pytest

from iolab.runner import workdirs


def _dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], check=True, capture_output=True, text=True
    )
    return int(proc.stdout)


def test_a_directory_whose_iolab_is_gone_is_removed_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(workdirs.tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    dead = _dead_pid()
    orphan = tmp_path / f"iolab-point-{dead}-abc123"
    (orphan / "logs").mkdir(parents=True)
    (orphan / "logs" / "iolab_bw.1.log").write_text("0, 1, 0, 4096, 0\n")
    phase = tmp_path / f"iolab-phase-{dead}-x_y"
    phase.mkdir()
    living = tmp_path / f"iolab-point-{os.getppid()}-abc123"  # the maker still runs
    living.mkdir()
    ours_now = tmp_path / f"iolab-point-{os.getpid()}-abc123"  # this process's own
    ours_now.mkdir()
    lookalike = tmp_path / f"iolab-scratch-{dead}-abc123"
    lookalike.mkdir()
    a_file = tmp_path / f"iolab-point-{dead}-file"
    a_file.write_text("not a directory")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep").write_text("x")
    link = tmp_path / f"iolab-point-{dead}-link"
    link.symlink_to(elsewhere)

    assert workdirs.remove_orphaned(dry_run=True) == [str(phase), str(orphan)]
    assert orphan.exists() and phase.exists()
    assert workdirs.remove_orphaned() == [str(phase), str(orphan)]
    assert not orphan.exists() and not phase.exists()
    assert living.is_dir() and ours_now.is_dir() and lookalike.is_dir() and a_file.is_file()
    assert link.is_symlink() and (elsewhere / "keep").read_text() == "x"


def test_a_work_directory_is_named_with_its_makers_pid_and_removed_after_use(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(workdirs.tempfile, "tempdir", None)
    with workdirs.workdir("point") as path:
        assert path.parent == tmp_path and path.name.startswith(f"iolab-point-{os.getpid()}-")
        (path / "fio.json").write_text("{}")
        assert workdirs.orphaned() == []  # its maker (this process) is alive
    assert not path.exists()


def test_a_directory_locked_by_a_live_iolab_of_another_pid_namespace_is_kept(tmp_path, monkeypatch):
    """A /tmp shared between containers: the maker's pid is dead here, but it runs there and holds the lock."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(workdirs.tempfile, "tempdir", None)
    running = tmp_path / f"iolab-point-{_dead_pid()}-elsewhere"
    running.mkdir()
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
        assert workdirs.remove_orphaned() == [] and running.is_dir()
    finally:
        holder.communicate("")
    assert workdirs.remove_orphaned() == [str(running)]  # its maker gone there too: swept


def test_a_work_directory_is_locked_while_in_use(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(workdirs.tempfile, "tempdir", None)
    with workdirs.workdir("phase") as path:
        fd = os.open(path, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
