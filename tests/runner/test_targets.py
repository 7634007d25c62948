"""How large a directory's scratch file is, and what its free space must hold: `--size`, the plan's own sizes,
or the default rule (pure functions, no file system but the free-space figure given)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.models import Workload
from iolab.runner.targets import DEFAULT_SCRATCH, scratch_bytes, scratch_size, workload_reach

MIB = 1 << 20


@pytest.mark.parametrize(
    ("options", "reach"),
    [
        ({"size": "128M"}, 128 * MIB),
        ({"size": "1g", "offset": "1g"}, 2 << 30),
        ({"size": "4096"}, 4096),
        ({"size": "50%"}, None),  # a share of whatever the target is
        ({"size": "1G", "offset": "10%"}, None),
        ({"rw": "read"}, None),  # no size: fio uses the whole target
    ],
)
def test_what_a_workload_reaches_into_its_file(options, reach):
    assert workload_reach(options) == reach


def _workloads(*sizes: str | None) -> list[Workload]:
    return [Workload(f"w{i}", {"rw": "randread"} | ({"size": s} if s else {})) for i, s in enumerate(sizes)]


def test_a_plan_whose_every_workload_names_a_size_gets_a_scratch_file_of_the_largest():
    assert scratch_bytes(None, _workloads("128M", "64M")) == 128 * MIB
    assert scratch_bytes(None, _workloads("1000000")) == MIB  # whole MiB: the file is written in 1 MiB blocks
    assert scratch_bytes(None, _workloads("4k")) == MIB


def test_a_workload_without_its_own_size_leaves_the_default_rule():
    assert scratch_bytes(None, _workloads("128M", None)) is None
    assert scratch_bytes(None, _workloads("50%")) is None
    assert scratch_bytes(None, []) is None


def test_size_given_is_used_but_never_smaller_than_a_workload_reaches():
    assert scratch_bytes(256 * MIB, _workloads("128M", None)) == 256 * MIB
    assert scratch_bytes(64 * MIB, _workloads("128M")) == 128 * MIB  # fio would grow the file past --size


def test_metadata_workloads_use_a_directory_not_the_scratch_file():
    metadata = Workload("md", {"ioengine": "filecreate", "nrfiles": "100", "filesize": "4k"})
    assert scratch_bytes(None, [metadata, *_workloads("128M")]) == 128 * MIB


def test_a_small_file_system_holds_what_the_plan_asks_though_not_the_default(tmp_path: Path):
    free = 300 * MIB
    with pytest.raises(UserError, match="has only 300 MiB free: iolab needs at least 640 MiB"):
        scratch_size(tmp_path, None, free)
    assert scratch_size(tmp_path, scratch_bytes(None, _workloads("128M")), free) == 128 * MIB
    with pytest.raises(UserError, match="too little for a 0.3 GiB scratch file"):
        scratch_size(tmp_path, scratch_bytes(None, _workloads("280M")), free)  # more than 90% of what is free
    assert scratch_size(tmp_path, None, 100 << 30) == DEFAULT_SCRATCH
