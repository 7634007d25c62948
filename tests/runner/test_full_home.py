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


@pytest.fixture
def small_home(tmp_path):
    """A 512 KiB tmpfs: room for the database and a point or two of results, not for five."""
    home = tmp_path / "home"
    home.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(home)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    yield home
    subprocess.run(["umount", "-l", str(home)], check=False)


def test_a_full_home_ends_the_run_with_exit_3_and_one_line(small_home, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    env = {"IOLAB_HOME": str(small_home)}
    proc = iolab("run", "--quiet", "--preset", "quick", "--runtime", "1", "--ramp", "0", "--size", "16M",
                 "--no-telemetry", str(target), env=env)
    assert proc.returncode == 3, (proc.returncode, proc.stderr[-600:])
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot write the iolab database" in lines[0] and "full" in lines[0], proc.stderr
    assert list(target.iterdir()) == []  # the scratch file went with the run
    shown = iolab("ls", env=env)
    assert shown.returncode == 0 and " failed " in shown.stdout and "running" not in shown.stdout, shown.stdout
