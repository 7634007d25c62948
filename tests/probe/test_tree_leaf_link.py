"""A captured tree's file that is a link (put there after the tape looked, or by whoever made the tree) is never
read or listed through: the last component is opened with O_NOFOLLOW like every directory above it. The swap
tests (test_tree_trust.py) replace directories; this holds the leaf, which no other test switched off."""

from __future__ import annotations

import hashlib
import os

from iolab.probe.tree import Tree


def test_a_file_or_directory_that_is_a_link_is_not_read_through(tmp_path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    (secret / "shadow").write_text("root-only-word\n")
    before = hashlib.sha256((secret / "shadow").read_bytes()).hexdigest()
    top = tmp_path / "tree"
    (top / "proc").mkdir(parents=True)
    os.chmod(tmp_path, 0o755)
    (top / "proc" / "version").write_text("Linux 6.1\n")
    (top / "proc" / "cmdline").symlink_to(secret / "shadow")
    (top / "proc" / "listed").symlink_to(secret)
    tree = Tree(str(top), "tree", captured=True)
    assert tree.read("proc/version") == b"Linux 6.1\n"  # the tree is read at all
    assert tree.read("proc/cmdline") is None
    assert tree.listdir("proc/listed") is None
    assert tree.readlink("proc/cmdline") == str(secret / "shadow")  # seen as the link it is
    assert hashlib.sha256((secret / "shadow").read_bytes()).hexdigest() == before
