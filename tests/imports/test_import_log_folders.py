"""Root importing another user's results reads each fio log from the folder its walk held, never by path again
(`imports.folders`): uid 65534 swapping their results folder for a link to a root-only one between the walk and
the parse, or naming a client host `../../private` in an output, gets none of the root-only log stored. The
root-only log's checksum is the same before and after, and the store holds neither its values nor its bytes.
Uid 65534 is a forked child (`tests/other_user.py`)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

import iolab.imports as imports
from iolab import guards
from iolab.imports import import_paths
from iolab.imports.folders import Folders
from iolab.store.db import open_store
from iolab.store.queries import point_samples
from tests.other_user import as_other_user, public_dir

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: uid 65534 acts as the other user")
LOGS = Path(__file__).parents[1] / "data" / "fio" / "logs"  # logged.json names its logs "point"
SECRET = 424242  # iops, stored as logged: the root-only log's one value
THEIRS = 5


@pytest.fixture
def public() -> Iterator[Path]:
    """Root's 0755 directory in /tmp with uid 65534's results folder `theirs/res` (an output and its iops log)
    and a root-only folder `private` (0700) holding a log of the same name with the secret value."""
    output = (LOGS / "logged.json").read_bytes()
    with public_dir("iolab-import-folders-") as top:

        def made() -> None:
            (top / "theirs" / "res").mkdir()
            (top / "theirs" / "res" / "logged.json").write_bytes(output)
            (top / "theirs" / "res" / "point_iops.1.log").write_text(f"1000, {THEIRS}, 0, 0, 0\n")

        as_other_user(made)
        (top / "private").mkdir(mode=0o700)
        (top / "private" / "point_iops.1.log").write_text(f"1000, {SECRET}, 0, 0, 0\n2000, {SECRET}, 0, 0, 0\n")
        (top / "private" / "point_iops.1.log").chmod(0o600)
        yield top


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _swapped_after_the_walk(top: Path) -> mock._patch:
    """`discover` as the import calls it, then uid 65534 swaps `theirs/res` for a link to the root-only folder."""
    real = imports.discover

    def walk_then_swap(paths: list[str]):
        found = real(paths)

        def swap() -> None:
            os.rename(top / "theirs" / "res", top / "theirs" / "res.kept")
            os.symlink(top / "private", top / "theirs" / "res")

        as_other_user(swap)
        return found

    return mock.patch.object(imports, "discover", walk_then_swap)


def _import_stored(top: Path, home: Path) -> tuple[list[float], bytes]:
    """Root imports `theirs`, with the swap between its walk and its parse: the iops values stored, and the
    store's bytes."""
    store = open_store(home)
    try:
        with _swapped_after_the_walk(top):
            outcome = import_paths([str(top / "theirs")], store, "iolab import")
        values = [
            s.value
            for run in outcome.run_ids
            for (point,) in store.conn.execute("SELECT id FROM points WHERE run_id = ?", (run,))
            for s in point_samples(store, point)
            if s.metric == "iops"
        ]
    finally:
        store.close()
    return values, b"".join(p.read_bytes() for p in home.glob("iolab.db*"))


def test_a_folder_swapped_for_a_link_after_the_walk_is_not_read_through(public, tmp_path):
    secret = public / "private" / "point_iops.1.log"
    before = _digest(secret)
    values, stored = _import_stored(public, tmp_path / "home")
    assert values and set(values) == {THEIRS}, values  # the log the walk saw, from the folder it held
    assert _digest(secret) == before
    assert secret.read_bytes() not in stored


def test_switched_off_the_same_swap_stores_the_root_only_log(public, tmp_path):
    """The attack is real: read by path after the walk, as before the guard, the secret is stored as theirs."""
    with guards.switched_off("import-held-folders"):
        values, _ = _import_stored(public, tmp_path / "home")
    assert SECRET in values


def test_a_client_host_is_one_plain_name_below_the_output_s_folder(public):
    """An output's own host names (`clients/HOST`) reach no folder outside its own: `..` and `/` name none."""
    folders = Folders()
    theirs = public / "theirs" / "res"
    as_other_user(lambda: (theirs / "clients" / "h1").mkdir(parents=True))
    folders.add_named(theirs)
    try:
        for host in ("../../../private", "..", ".", "", "a/b", "h1/../../../private"):
            assert folders.held(theirs, "clients", host) is None, host
        held = folders.held(theirs, "clients", "h1")
        assert held is not None and held.names == []
        as_other_user(lambda: os.symlink(public / "private", theirs / "clients" / "h2"))
        assert folders.held(theirs, "clients", "h2") is None  # a link is not followed
    finally:
        folders.close()
