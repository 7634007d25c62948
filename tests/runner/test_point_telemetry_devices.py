"""Which block devices a point's telemetry samples (runner.measure.Measurer._devices): every member of an
array, each one's devices in turn; a directory target's own path (its scratch file may not exist yet), a
file's filename; a member that cannot be resolved is left out, never the point."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.models import Point, Target
from iolab.runner import measure
from iolab.runner.measure import Measurer

UNDER = {"/dev/md0": ["sda", "sdb"], "/dev/nvme0n1": ["nvme0n1"], "/srv/d": ["dm-0"], "/srv/f.dat": ["sdc"]}


@pytest.fixture(autouse=True)
def resolver(monkeypatch):
    def devices_for_path(path: str) -> list[str]:
        if path not in UNDER:
            raise UserError(f"{path}: no block device under it")
        return list(UNDER[path])

    monkeypatch.setattr(measure, "devices_for_path", devices_for_path)


def _point(target: Target) -> Point:
    return Point("p", target, {"rw": "randread"})


@pytest.mark.parametrize(
    ("target", "devices"),
    [
        (Target("g", "group", "", 1, members=("/dev/md0", "/dev/gone", "/dev/nvme0n1")), ["sda", "sdb", "nvme0n1"]),
        (Target("/srv/d", "directory", "/srv/d/iolab-scratch.dat", 1), ["dm-0"]),
        (Target("/srv/f.dat", "file", "/srv/f.dat", 1), ["sdc"]),
        (Target("/srv/none", "file", "/srv/none", 1), []),
    ],
)
def test_a_point_samples_the_devices_under_each_place_it_does_i_o(target, devices):
    assert Measurer._devices(None, _point(target)) == devices  # type: ignore[arg-type]
