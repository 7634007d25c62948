"""The scratch file each target is asked for (runner.planning.resolve_targets), with a fake executor keeping
the size it was asked: a directory that only file create/stat/remove use gets none (0, no size asked of its
file system), one read or written by any workload gets what those workloads reach (rounded up to whole MiB,
at least 1 MiB), `--size` wins when larger, and a workload without a size of its own leaves the default
rule (None)."""

from __future__ import annotations

import pytest

from iolab.models import Plan, Target, Workload
from iolab.runner.planning import resolve_targets
from iolab.runner.request import RunRequest

MIB = 1 << 20


class Asked:
    """An executor that resolves every path as a directory and keeps the scratch size asked for each."""

    def __init__(self) -> None:
        self.scratch: dict[str, int | None] = {}

    def default_paths(self, paths: list[str]) -> list[str]:
        return paths or ["."]

    def target(
        self, path: str, allow_write: bool, size: int | None, scratch: int | None, create: bool = False
    ) -> Target:
        self.scratch[path] = scratch
        return Target(path=path, kind="directory", filename=f"{path}/f", size_bytes=scratch or 0)


CREATE = Workload("create", {"ioengine": "filecreate", "nrfiles": "10", "filesize": "4k"})
STAT = Workload("stat", {"ioengine": "filestat", "nrfiles": "10", "filesize": "4k"})


def _asked(workloads: list[Workload], size: int | None = None) -> int | None:
    executor = Asked()
    request = RunRequest(plan="p.fio", targets=["/d"], size=size)
    resolve_targets(request, Plan("p", workloads), executor)  # type: ignore[arg-type]
    return executor.scratch["/d"]


@pytest.mark.parametrize("size", [None, 64 * MIB])
def test_a_directory_only_file_operations_use_gets_no_scratch_file(size):
    assert _asked([CREATE, STAT], size) == 0


@pytest.mark.parametrize(
    ("options", "size", "asked"),
    [
        ({"size": "3m"}, None, 3 * MIB),
        ({"size": "100k"}, None, MIB),  # at least 1 MiB
        ({"size": "1m", "offset": "1536k"}, None, 3 * MIB),  # offset + size, up to whole MiB
        ({"size": "3m"}, 2 * MIB, 3 * MIB),  # never less than a workload reaches
        ({"size": "3m"}, 8 * MIB, 8 * MIB),
        ({}, None, None),  # no size of its own: the default rule
        ({}, 5 * MIB, 5 * MIB),
    ],
)
def test_a_directory_read_by_any_workload_gets_what_they_reach(options, size, asked):
    read = Workload("read", {"rw": "read", "bs": "4k", **options})
    assert _asked([CREATE, read], size) == asked
