"""A path several points use is listed once (runner.manifest), generated: whatever the order the points come
in, its line says each thing done to it once, in the order met, and counts as many clones and as many files
per clone as any point has. The counts were once those of whichever use was larger as a (jobs, files) pair:
4 jobs x 1 file then 2 jobs x 5 files listed job 0-3, file 0-0, leaving out the four other files fio makes
for jobs 0 and 1."""

from __future__ import annotations

import random

import pytest

from iolab.models import Point, Target
from iolab.runner.manifest import build_manifest

FILE = Target(path="/data/f", kind="file", filename="/data/f", size_bytes=2**20)
DIRECTORY = Target(
    path="/mnt/d", kind="directory", filename="/mnt/d/iolab-scratch-ab12.dat", size_bytes=2**20, scratch=True
)
ENGINES = {"filecreate": "create", "filestat": "stat", "filedelete": "remove"}


def _line(points: list[Point], marker: str) -> str:
    (line,) = [line for line in build_manifest(points).lines() if line.startswith(marker)]
    return line


@pytest.mark.parametrize("seed", range(40))
def test_each_use_is_said_once_in_the_order_met_with_the_largest_counts(seed):
    rng = random.Random(seed)
    uses = [(rng.choice(sorted(ENGINES)), rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rng.randint(1, 6))]
    points = [
        Point(engine, DIRECTORY, {"ioengine": engine, "numjobs": str(jobs), "nrfiles": str(files), "filesize": "4k"})
        for engine, jobs, files in uses
    ]
    line = _line(points, "/mnt/d/iolab-metadata-ab12/")
    jobs, files = max(j for _, j, _ in uses), max(f for _, _, f in uses)
    engines = list(dict.fromkeys(engine for engine, _, _ in uses))
    said = "; ".join(f"fio's file {ENGINES[e]} ({e}), in iolab's own directory" for e in engines)
    assert line.endswith(f" ({jobs * files:,} name(s): job 0-{jobs - 1}, file 0-{files - 1}): {said}")


@pytest.mark.parametrize("order", [["randread", "randwrite", "randread"], ["randwrite", "randread", "randwrite"]])
def test_a_file_read_and_written_in_turns_says_each_once(order):
    points = [Point(rw, FILE, {"rw": rw, "bs": "4k"}) for rw in order]
    first, second = (
        ("read by fio", "read and written by fio")
        if order[0] == "randread"
        else reversed(("read by fio", "read and written by fio"))
    )
    assert _line(points, "/data/f") == f"/data/f: {first}; {second}"
