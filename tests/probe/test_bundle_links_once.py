"""A support bundle (probe.bundle.save_bundle) stores each path the probe read once, however often and by
however many links it was reached, and follows a chain of links as far as the kernel would (40, past which
open() fails with ELOOP): the file at the end of 40 links is in the bundle, past 41 it is not."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

from iolab.probe.bundle import save_bundle
from iolab.probe.root import Root


def _saved(tmp_path: Path, paths: list[Path]) -> list[str]:
    root = Root("/", record=True)
    for path in paths:
        root.read_text(str(path))
    save_bundle(root, tmp_path / "b.tar.gz")
    with tarfile.open(tmp_path / "b.tar.gz") as tar:
        return tar.getnames()


def _chain(tmp_path: Path, links: int) -> Path:
    """link0 -> link1 -> ... -> link{links-1} -> value: the path of link0."""
    (tmp_path / "value").write_text("7\n")
    for i in range(links):
        os.symlink(f"link{i + 1}" if i + 1 < links else "value", tmp_path / f"link{i}")
    return tmp_path / "link0"


def test_a_file_read_directly_and_through_a_link_is_stored_once(tmp_path):
    (tmp_path / "value").write_text("7\n")
    os.symlink("value", tmp_path / "alias")
    names = _saved(tmp_path, [tmp_path / "value", tmp_path / "alias"])
    value = str(tmp_path / "value").lstrip("/")
    assert names.count(value) == 1 and names.count(str(tmp_path / "alias").lstrip("/")) == 1


@pytest.mark.parametrize(("links", "stored"), [(40, True), (41, False)])
def test_a_chain_of_links_is_followed_as_far_as_the_kernel_follows_one(tmp_path, links, stored):
    names = _saved(tmp_path, [_chain(tmp_path, links)])
    assert (str(tmp_path / "value").lstrip("/") in names) is stored
    assert sum(name.startswith(str(tmp_path / "link").lstrip("/")) for name in names) == min(links, 41)
    if links == 40:
        assert (tmp_path / "link0").read_text() == "7\n"  # the kernel follows it too
    else:
        with pytest.raises(OSError):
            (tmp_path / "link0").read_text()
