"""What a dry run lists about the places a run writes (runner.dryrun): each directory's path-chain check, or
why the run would refuse it, in one line (a refusal's two lines joined; an OS error by file and reason), the
first refusal kept; and the directories iolab makes in a target: one for file create/stat/remove, one for
each job's own file, sized by the largest point's files."""

from __future__ import annotations

import errno
import os

from iolab import pathchain
from iolab.errors import UserError
from iolab.models import Point, Target
from iolab.runner import dryrun

DIRECTORY = Target("/srv/data", "directory", "/srv/data/iolab-scratch.dat", 1 << 30, scratch=True, writable=True)
MIB = 1 << 20


def test_each_place_s_check_or_refusal_is_one_line_and_the_first_refusal_is_kept(monkeypatch):
    def check(directory: str):  # type: ignore[no-untyped-def]
        if directory == "/srv/data":
            raise UserError(
                "/srv/data is writable by others, so another user could redirect it.\nFix: chmod go-w /srv/data"
            )
        raise OSError(errno.ENOENT, os.strerror(errno.ENOENT), directory)

    monkeypatch.setattr(pathchain, "check", check)
    monkeypatch.setattr(dryrun, "_home_chain", lambda home: check("/home/u/.local/share/iolab"))
    lines, refused = dryrun.path_checks([DIRECTORY])
    assert lines[0] == (
        "/srv/data (its directory): refused: /srv/data is writable by others, so another user could redirect it. "
        "Fix: chmod go-w /srv/data"
    )
    assert lines[-1] == "IOLAB_HOME: refused: /home/u/.local/share/iolab: No such file or directory"
    assert len(lines) == 3 and refused.startswith("/srv/data is writable by others")


def _point(jobs: int, size: str, operation: bool = False) -> Point:
    options = {"rw": "randread", "bs": "4k", "numjobs": str(jobs), "size": size, "filename_format": "f.$jobnum"}
    if operation:
        options = {"rw": "read", "ioengine": "filecreate", "nrfiles": "100", "filesize": "4k"}
    return Point(f"p{jobs}", DIRECTORY, options)


def test_the_directories_made_in_a_target_are_listed_with_the_largest_set_of_files():
    lines = dryrun._directories(DIRECTORY, [_point(4, "8M"), _point(2, "64M")], metadata=False)
    assert len(lines) == 1 and lines[0].startswith("directory /srv/data/")
    assert "for each job's own file (up to 128.0 MiB at a time, laid out by fio, removed afterwards)" in lines[0]
    both = dryrun._directories(DIRECTORY, [_point(1, "1M", operation=True), _point(4, "8M")], metadata=False)
    assert [line.split(" for ")[1][:14] for line in both] == ["file create, s", "each job's own"]
    assert dryrun._directories(DIRECTORY, [], metadata=True)[0].endswith(
        "for file create, stat and remove (removed afterwards)"
    )
    assert dryrun._directories(DIRECTORY, [], metadata=False) == []
