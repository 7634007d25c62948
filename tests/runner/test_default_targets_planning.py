"""Which default targets a run resolves (runner.planning.resolve_targets), with a fake executor recording what
it is asked: a job file whose jobs all name their own filename= has none (the current directory is neither
checked nor listed: `ls` showed "."), and any workload without a target of its own, a target given on the
command line or one in the plan brings the defaults back."""

from __future__ import annotations

import pytest

from iolab.models import Plan, Target, Workload
from iolab.runner.planning import resolve_targets
from iolab.runner.request import RunRequest


class Recording:
    """An executor that resolves every path as a file and records the paths it checked."""

    def __init__(self) -> None:
        self.checked: list[str] = []

    def default_paths(self, paths: list[str]) -> list[str]:
        return paths or ["."]

    def target(
        self, path: str, allow_write: bool, size: int | None, scratch: int | None, create: bool = False
    ) -> Target:
        self.checked.append(path)
        return Target(path=path, kind="file", filename=path, size_bytes=1 << 20)


OWN = Workload("a", {"rw": "read", "bs": "4k"}, target="/data/a.dat")


def test_jobs_that_all_name_their_files_check_and_list_no_default_target():
    executor = Recording()
    found = resolve_targets(RunRequest(plan="jobs.fio"), Plan("jobs", [OWN]), executor)  # type: ignore[arg-type]
    assert found[None] == [] and executor.checked == ["/data/a.dat"]


@pytest.mark.parametrize(
    ("request_targets", "plan_targets", "workloads", "defaults"),
    [
        ([], [], [OWN, Workload("b", {"rw": "read", "bs": "4k"})], ["."]),  # one workload on the default
        (["/t"], [], [OWN], ["/t"]),  # asked on the command line
        ([], ["/p"], [OWN], ["/p"]),  # named by the plan
    ],
)
def test_a_default_target_is_resolved_when_anything_asks_for_one(request_targets, plan_targets, workloads, defaults):
    executor = Recording()
    plan = Plan("jobs", workloads, targets=plan_targets)
    found = resolve_targets(RunRequest(plan="jobs.fio", targets=request_targets), plan, executor)  # type: ignore[arg-type]
    assert [t.path for t in found[None]] == defaults
    assert sorted(executor.checked) == sorted([*defaults, "/data/a.dat"])
