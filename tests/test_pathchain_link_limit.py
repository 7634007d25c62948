"""How many links iolab follows in a path (pathchain.resolve): as many as the kernel does in one lookup (40);
a path the kernel itself refuses with ELOOP is refused with a line saying to give the real path."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.pathchain import resolve


def _chain(tmp_path: Path, links: int) -> Path:
    """links/l0 -> l1 -> ... -> l<links-1> -> the directory `real`: `links` links to follow."""
    real = tmp_path / "real"
    real.mkdir(exist_ok=True)
    where = tmp_path / f"chain{links}"
    where.mkdir()
    for n in range(links):
        (where / f"l{n}").symlink_to(where / f"l{n + 1}" if n + 1 < links else real)
    return where / "l0"


def test_a_chain_the_kernel_follows_is_followed_to_its_end(tmp_path):
    first = _chain(tmp_path, 40)
    assert os.stat(first).st_ino == (tmp_path / "real").stat().st_ino  # the kernel follows all 40
    done, links = resolve(str(first / "data"))
    assert done == str(tmp_path / "real" / "data") and len(links) == 40


def test_one_link_more_than_the_kernel_follows_is_refused(tmp_path):
    first = _chain(tmp_path, 41)
    with pytest.raises(OSError) as kernel:
        os.stat(first)
    assert kernel.value.errno == errno.ELOOP
    with pytest.raises(UserError, match="too many links to resolve; give the real path$"):
        resolve(str(first / "data"))
