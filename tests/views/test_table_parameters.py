"""A table states a workload's parameters as the runner ran it: direct as its job file had it."""

from __future__ import annotations

from iolab.models import Point, PointRecord, Target
from iolab.views.tables import notebook_tables

FILE = Target(path="/data", kind="directory", filename="/data/iolab.0", size_bytes=2**30, writable=True)


def _fixed(options: dict[str, str], target: Target = FILE) -> dict[str, str]:
    records = [
        PointRecord(i, 1, i, Point(f"rr-{bs}", target, {"rw": "randread", "bs": bs, **options}), "failed")
        for i, bs in enumerate(("4k", "64k"))
    ]
    (table,) = notebook_tables(records, {})
    assert table.axis == "bs"
    return dict(table.fixed)


def test_a_buffered_workload_is_stated_direct_0():
    # buffered=1 ran buffered: the table said direct=1 beside it
    assert _fixed({"buffered": "1"})["direct"] == "0"
    assert _fixed({})["direct"] == "1" and _fixed({"direct": "0"})["direct"] == "0"
    refused = Target(path="/dev/shm", kind="directory", filename="/dev/shm/iolab.0", size_bytes=2**30, direct=False)
    assert _fixed({"direct": "1"}, refused)["direct"] == "0"
