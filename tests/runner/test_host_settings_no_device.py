"""A host setting (a block queue's nr_requests) asked of a target with no block device under it is refused
naming the target's file system, or "unknown file system" when none was found: the user learns why (tmpfs,
a network file system) or that iolab could not tell. No fast test refused one whose file system was unknown
(fresh seed 71735 found `or` turned `and` survived: it printed None)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.models import Point, Target
from iolab.probe.root import Root
from iolab.runner.host_settings import HostSettings


def _refusal(tmp_path: Path, fs_type: str | None) -> str:
    target = Target(path="/mnt/t", kind="directory", filename="/mnt/t/f", size_bytes=1 << 20, fs_type=fs_type)
    point = Point("p", target, {"rw": "randread"}, host_settings={"nr_requests": "64"})
    with pytest.raises(UserError) as refused:
        HostSettings(None, Root(tmp_path)).check([point], lambda t: [])
    return str(refused.value)


@pytest.mark.parametrize(("fs_type", "named"), [("tmpfs", "(tmpfs)"), (None, "(unknown file system)")])
def test_a_setting_on_a_target_without_a_block_device_names_its_file_system_or_says_unknown(tmp_path, fs_type, named):
    assert _refusal(tmp_path, fs_type) == (
        f"/mnt/t: no block device under it {named}, so it has no nr_requests: give a target on a block device"
    )
