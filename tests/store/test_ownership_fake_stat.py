"""Whose home it is (store.ownership), with a fake stat answering as another user's or a shared directory
would (the end-to-end tests make such homes as root): every problem is named, both when both apply, and the
refusal gives the chown and chmod that fix exactly what is wrong."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest

from iolab.errors import UserError
from iolab.store import ownership
from iolab.store.ownership import require_own, unsafe_owner

ME = os.geteuid()
HOME = Path("/lab/home dir")


REAL_STAT = os.stat


def _answer(monkeypatch: pytest.MonkeyPatch, answer) -> None:
    """`os.stat` answering `answer(path)` for HOME, as itself for every other path (pytest's own)."""
    monkeypatch.setattr(
        ownership.os, "stat", lambda path, *a, **k: answer(path) if Path(path) == HOME else REAL_STAT(path, *a, **k)
    )


def _as(monkeypatch: pytest.MonkeyPatch, uid: int, mode: int) -> None:
    _answer(monkeypatch, lambda path: SimpleNamespace(st_uid=uid, st_mode=stat.S_IFDIR | mode))


@pytest.mark.parametrize(
    ("uid", "mode", "problem"),
    [
        (ME, 0o700, ""),
        (ME, 0o755, ""),  # others may read: only writing is refused
        (ME, 0o770, "writable by group"),
        (ME, 0o702, "writable by group and others"),
        (ME, 0o777, "writable by group and others"),
        (ME + 1, 0o700, f"owned by uid {ME + 1}, not by you (uid {ME})"),
        (ME + 1, 0o775, f"owned by uid {ME + 1}, not by you (uid {ME}) and writable by group"),
    ],
)
def test_every_problem_with_a_home_is_named(monkeypatch, uid, mode, problem):
    _as(monkeypatch, uid, mode)
    assert unsafe_owner(HOME) == problem


def test_a_home_not_made_yet_is_fine_and_one_that_cannot_be_read_says_why(monkeypatch):
    def missing(path):
        raise FileNotFoundError(errno.ENOENT, "No such file")

    _answer(monkeypatch, missing)
    assert unsafe_owner(HOME) == ""

    def denied(path):
        raise PermissionError(errno.EACCES, "Permission denied")

    _answer(monkeypatch, denied)
    assert unsafe_owner(HOME) == "Permission denied"


def test_the_refusal_gives_the_fix_for_what_is_wrong_and_nothing_else(monkeypatch):
    _as(monkeypatch, ME, 0o700)
    require_own(HOME, "IOLAB_HOME")  # yours alone: nothing to say
    _as(monkeypatch, ME, 0o775)
    with pytest.raises(UserError) as shared:
        require_own(HOME, "IOLAB_HOME")
    assert str(shared.value) == (
        "IOLAB_HOME /lab/home dir is writable by group; another user could make iolab delete your files."
        " Fix: chmod go-w '/lab/home dir' (or set IOLAB_HOME to a directory of your own)"
    )
    _as(monkeypatch, ME + 1, 0o700)
    with pytest.raises(UserError) as foreign:
        require_own(HOME, "the iolab database")
    assert f"Fix: chown {ME} '/lab/home dir' && chmod go-w '/lab/home dir' (or" in str(foreign.value)
