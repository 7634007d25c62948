"""A plan's preconditioning through the real run loop on the fake executor, its unmeasured fio jobs run by a fio
that keeps each job file it is given: once before a target's first point, or before each point that writes, and
a discard asked of a target that is no block device noted, not done."""

from __future__ import annotations

from pathlib import Path

from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from iolab.store.queries import run_phases
from tests.runner.fake_executor import FakeExecutor


def _run(tmp_path: Path, scope: str, discard: str = "false"):
    target = tmp_path / "dir"
    target.mkdir()
    plan = tmp_path / "plan.toml"
    plan.write_text(
        'name = "pre"\n[options]\nruntime = "1s"\nbs = "4k"\n[axes]\nrw = ["randread", "randwrite", "write"]\n'
        f'[phases.precondition]\noptions = {{ rw = "write", bs = "128k" }}\nscope = "{scope}"\ndiscard_first = {discard}\n'
    )
    request = RunRequest(plan=str(plan), targets=[str(target)], telemetry_interval=None, size=64 << 20)
    executor = FakeExecutor()
    outcome = execute(request, open_store(), SilentProgress(), executor=executor)
    return outcome, executor


def _written(jobs: Path) -> list[str]:
    return [("precondition" if "bs=128k" in p.read_text() else "fill") for p in sorted(jobs.iterdir())]


def test_a_precondition_once_runs_before_the_target_s_first_point_only(tmp_path, kept_jobs):
    outcome, executor = _run(tmp_path, "once")
    assert outcome.status == "complete" and len(executor.ran) == 3
    assert sorted(_written(kept_jobs)) == ["fill", "precondition"]
    kinds = [p.kind for p in run_phases(open_store(), outcome.run_id)]
    assert kinds.count("precondition") == 1


def test_a_precondition_before_each_write_runs_before_each_writing_point(tmp_path, kept_jobs):
    outcome, executor = _run(tmp_path, "before_each_write")
    assert outcome.status == "complete"
    assert sorted(_written(kept_jobs)) == ["fill", "precondition", "precondition"]
    phases = [p for p in run_phases(open_store(), outcome.run_id) if p.kind == "precondition"]
    assert len(phases) == 2 and all(p.subject.endswith("(precondition)") for p in phases)


def test_a_discard_first_on_a_directory_is_noted_and_the_precondition_still_runs(tmp_path, kept_jobs):
    outcome, _ = _run(tmp_path, "once", discard="true")
    (discard,) = [p for p in run_phases(open_store(), outcome.run_id) if p.kind == "discard"]
    assert discard.outcome == f"{tmp_path / 'dir'}: discard applies only to block devices opened with --allow-write"
    assert sorted(_written(kept_jobs)) == ["fill", "precondition"]
