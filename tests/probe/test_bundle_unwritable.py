"""A support bundle that cannot be written (probe.bundle.save_bundle) is one line naming the file and the
OS's reason, never a traceback; one asked of a captured tree (--root) is refused, as --save captures the
live machine."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.probe.bundle import save_bundle
from iolab.probe.root import Root


def test_a_bundle_into_a_missing_directory_is_refused_naming_it(tmp_path):
    dest = tmp_path / "no-such-dir" / "b.tar.gz"
    with pytest.raises(UserError, match=rf"^cannot write bundle {dest}: No such file or directory$"):
        save_bundle(Root("/", record=True), dest)


def test_a_bundle_of_a_captured_tree_is_refused(tmp_path):
    with pytest.raises(UserError, match="^--save captures the live machine; it cannot be combined with --root$"):
        save_bundle(Root(tmp_path), tmp_path / "b.tar.gz")
