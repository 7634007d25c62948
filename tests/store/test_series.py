"""A workload's identity across runs: what it runs and where, not the random name of its scratch file."""

from __future__ import annotations

from iolab.models import Point, Target
from iolab.models.workload import workload_identity


def _point(filename: str, scratch: bool, repeat: int = 0) -> Point:
    target = Target(path="/data", kind="directory", filename=filename, size_bytes=1 << 30, scratch=scratch)
    return Point("rr", target, {"rw": "randread", "bs": "4k"}, repeat)


def test_scratch_files_of_different_runs_are_one_series():
    first = _point("/data/iolab-scratch-0123456789ab.dat", scratch=True)
    second = _point("/data/iolab-scratch-ba9876543210.dat", scratch=True, repeat=1)
    assert workload_identity(first) == workload_identity(second)
    assert first.key != second.key  # repeats stay separate measurements


def test_a_named_file_is_its_own_series():
    assert workload_identity(_point("/data/a.dat", False)) != workload_identity(_point("/data/b.dat", False))
