"""Files an import finds in a folder and cannot read are skipped, each under the reason a user reads
(issue 41: `bench/mutation.py --whole` finds the reasons held by no fast test): larger than 256 MiB (a sparse
file: nothing is read), not text, a FIFO (not a regular file: never opened for a blocking read), and no
benchmark output."""

from __future__ import annotations

import os
from pathlib import Path

from iolab.imports.discover import discover

DATA = Path(__file__).resolve().parent.parent / "data"


def test_each_file_found_and_not_read_is_skipped_under_its_reason(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "out.json").write_bytes((DATA / "fio" / "randread-4jobs.json").read_bytes())
    with open(folder / "huge.json", "wb") as sparse:
        sparse.truncate((256 << 20) + 1)
    (folder / "exactly.bin").write_bytes(b"\xff\xfe\x00" * 10)
    os.mkfifo(folder / "pipe")
    (folder / "notes.txt").write_text("nothing measured here\n")
    found = discover([str(folder)])
    assert [c.path.name for c in found.candidates] == ["out.json"]
    assert {reason: [Path(p).name for p in paths] for reason, paths in found.skipped.items()} == {
        "larger than 256 MiB": ["huge.json"],
        "not text": ["exactly.bin"],
        "not a regular file": ["pipe"],
        "not a benchmark output": ["notes.txt"],
    }
