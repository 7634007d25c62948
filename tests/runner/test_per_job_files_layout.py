"""The directory of per-job files holds one set of files at a time (runner.session.Session._per_job_directory):
made (and recorded for removal) on a target's first such point, emptied when a point asks for another job
count or another size, kept when the next point reads the same files (fio lays out only what is missing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.models import Point, Target
from iolab.runner import scratch
from iolab.runner.session import Session

TARGET = Target("/srv/d", "directory", "/srv/d/iolab-scratch.dat", 64 << 20)


@pytest.fixture
def calls(monkeypatch) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(scratch, "create_dir", lambda store, run_id, directory: seen.append(("made", str(directory))))
    monkeypatch.setattr(scratch, "empty_directory", lambda directory: seen.append(("emptied", str(directory))))
    return seen


def _point(jobs: int, size: str = "") -> Point:
    options = {"rw": "randread", "bs": "4k", "numjobs": str(jobs), "filename_format": "f.$jobnum"}
    return Point(f"p{jobs}{size}", TARGET, options | ({"size": size} if size else {}))


def test_the_files_are_made_once_kept_for_the_same_layout_and_emptied_for_another(calls):
    session = Session(store=None, run_id=1, measurer=None, progress=None, done={}, planned={}, total=4)  # type: ignore[arg-type]
    done = []
    for point in (_point(4), _point(4), _point(8), _point(8, "1M"), _point(8, "1M")):
        assert point.per_job_files
        session._per_job_directory(point)
        done.append([what for what, _ in calls])
        calls.clear()
    assert done == [["made"], [], ["emptied"], ["emptied"], []]
    session._per_job_directory(_point(2))
    ((what, directory),) = calls
    assert what == "emptied" and Path(directory).parent == Path("/srv/d")
