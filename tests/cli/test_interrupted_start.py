"""Ctrl-C while Python is still loading iolab: one line and exit 130, from `python -m iolab` and from the
`iolab` command alike, never a traceback. The Ctrl-C is made to land there: a module of the same name as
typer (the first thing the command line loads) raises KeyboardInterrupt when imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("how", ["python -m iolab", "iolab"])
def test_ctrl_c_while_loading_ends_with_one_line(tmp_path, how):
    (tmp_path / "typer.py").write_text("raise KeyboardInterrupt\n")
    command = Path(sys.executable).with_name("iolab")  # the spelling tests/conftest.py marks e2e by
    if how == "iolab" and not command.exists():
        pytest.skip(f"no `iolab` command beside {sys.executable} (not installed in this environment)")
    argv = [sys.executable, "-m", "iolab", "ls"] if how != "iolab" else [str(command), "ls"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr.strip() == "iolab: interrupted", proc.stderr
