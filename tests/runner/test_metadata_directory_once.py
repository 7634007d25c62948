"""A run's metadata directory (runner.session.Session.metadata_directory) is made and recorded on a target's
first metadata point only: the points after it create, stat and remove files in the same directory, and a
second mkdir there would fail (mkdir never reuses an existing path)."""

from __future__ import annotations

from pathlib import Path

from iolab.fio.run import metadata_dir
from iolab.models import Target
from iolab.runner import scratch
from iolab.runner.session import Session

ONE = Target("/srv/a", "directory", "/srv/a/iolab-scratch.dat", 64 << 20)
TWO = Target("/srv/b", "directory", "/srv/b/iolab-scratch.dat", 64 << 20)


def test_each_target_s_metadata_directory_is_made_once(monkeypatch) -> None:
    made: list[Path] = []
    monkeypatch.setattr(scratch, "create_dir", lambda store, run_id, directory: made.append(directory))
    session = Session(store=None, run_id=1, measurer=None, progress=None, done={}, planned={}, total=3)  # type: ignore[arg-type]
    got = [session.metadata_directory(t) for t in (ONE, ONE, TWO, ONE, TWO)]
    assert got == [metadata_dir(t) for t in (ONE, ONE, TWO, ONE, TWO)]
    assert made == [metadata_dir(ONE), metadata_dir(TWO)]
    assert metadata_dir(ONE).parent == Path("/srv/a")
