"""What `--devices` accepts as an array's members (runner.arrays.resolve_members), with targets faked: block
devices only, at least two, and no two going by one name (point names and --subsets name a device by its
path's last part); each refusal one line naming the device."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.models import Target
from iolab.runner import arrays


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    kinds = {"/srv": "directory"}

    def resolve_target(path: str, allow_write: bool, size: int | None) -> Target:
        return Target(path, kinds.get(path, "block"), path, 1 << 30)  # type: ignore[arg-type]

    monkeypatch.setattr(arrays, "resolve_target", resolve_target)
    monkeypatch.setattr(arrays, "expand_devices", lambda specs: list(specs))


def test_two_block_devices_of_their_own_names_are_an_array():
    members = arrays.resolve_members(["/dev/sdx", "/dev/sdy"], False, None)
    assert [m.path for m in members] == ["/dev/sdx", "/dev/sdy"]


@pytest.mark.parametrize(
    ("specs", "said"),
    [
        (["/dev/sdx", "/srv"], "--devices takes block devices; /srv is a directory"),
        (["/dev/sdx"], "--devices needs at least two block devices to compare"),
        (
            ["/dev/sdx", "/dev/disk/by-id/sdx", "/dev/sdy"],
            "--devices: two devices are called sdx (the last part of their paths); name each by a path of its own name",
        ),
    ],
)
def test_what_is_no_array_is_refused_in_one_line(specs, said):
    with pytest.raises(UserError) as refused:
        arrays.resolve_members(specs, False, None)
    assert str(refused.value) == said
