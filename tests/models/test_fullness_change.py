"""A file system's fullness is a change between two runs from one point of the disk on (1.0% of it exactly
counts; 0.9 points is the noise every run makes), written to one decimal; appearing or vanishing is a change
at any level."""

from __future__ import annotations

import pytest

from iolab.models.snapshot import FileSystem, Snapshot
from iolab.models.snapshot_diff import diff_snapshots


def _fs(used: int | None) -> Snapshot:
    return Snapshot(
        filesystems=[FileSystem("/data", "ext4", "/dev/sdb1", "8:17", ["rw"], size_bytes=1000, used_bytes=used)]
    )


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        (500, 510, ("50.0%", "51.0%")),  # one point: a change
        (500, 490, ("50.0%", "49.0%")),
        (500, 509, None),  # 0.9 points: noise
        (500, 491, None),
        (500, 500, None),
        (None, 500, ("", "50.0%")),
        (500, None, ("50.0%", "")),
        (1, 995, ("0.1%", "99.5%")),
    ],
)
def test_fullness_changes_from_one_point_on(before, after, said):
    used = [(c.before, c.after) for c in diff_snapshots(_fs(before), _fs(after)) if c.what == "used"]
    assert used == ([] if said is None else [said])
    assert all(c.subject == "/data" for c in diff_snapshots(_fs(before), _fs(after)))
