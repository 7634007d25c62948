"""No tracked file carries the path of the checkout it was made in (the standards: never commit machine
paths). Pages pinned from an import once held `/work/...`, the helper's clone, so they passed only there;
any file written from a test run (pinned pages, results, notes) is caught here on the machine that wrote it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_no_tracked_file_holds_this_checkout_s_path():
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: nothing tracked to read")
    needle = str(ROOT).encode()
    holding = []
    for name in listed.stdout.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file() and not path.is_symlink() and needle in path.read_bytes():
            holding.append(name)
    assert holding == [], f"these hold {ROOT}: write them relative to the checkout"
