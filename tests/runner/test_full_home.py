"""IOLAB_HOME filling up mid-run: one line, exit 3, the run marked failed, its scratch file removed."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.iolab_cli import iolab

pytestmark = [
    pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed"),
    pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root"),
]


ROOM = 160 << 10  # what is left once the database exists: a point or two of fio output and logs, not five


@pytest.fixture
def small_home(tmp_path):
    """A tmpfs holding a new iolab database and a filler file that leaves ROOM bytes free."""
    home = tmp_path / "home"
    home.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(home)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        assert iolab("ls", env={"IOLAB_HOME": str(home)}).returncode == 0  # creates the database
        free = os.statvfs(home).f_bavail * os.statvfs(home).f_frsize
        (home / "filler").write_bytes(b"\0" * max(0, free - ROOM))
        yield home
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)


def test_a_full_home_ends_the_run_with_exit_3_and_one_line(small_home, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    env = {"IOLAB_HOME": str(small_home)}
    proc = iolab(
        "run", "--quiet", "--preset", "quick", "--runtime", "1", "--ramp", "0", "--size", "16M", str(target), env=env
    )
    assert proc.returncode == 3, (proc.returncode, proc.stderr[-600:])
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot write the iolab database" in lines[0] and "full" in lines[0], proc.stderr
    assert list(target.iterdir()) == []  # the scratch file went with the run
    shown = iolab("ls", env=env)
    assert shown.returncode == 0 and " failed " in shown.stdout and "running" not in shown.stdout, shown.stdout
