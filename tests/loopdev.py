"""Loop devices for tests: real block devices backed by small files."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def require_loop() -> None:
    """Skip the calling test unless loop devices can be made here."""
    if os.geteuid() != 0:
        pytest.skip("loop devices need root")
    if shutil.which("losetup") is None:
        pytest.skip("losetup (util-linux) is not installed")


@contextlib.contextmanager
def loop_device(backing: Path, size: int) -> Iterator[str]:
    """Attach a zero-filled file of `size` bytes as a loop device; detach afterwards."""
    with open(backing, "wb") as f:
        f.truncate(size)
    proc = subprocess.run(["losetup", "--find", "--show", str(backing)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot attach a loop device: {proc.stderr.strip()}")
    device = proc.stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], check=False)
