"""The order of a target's unmeasured phases: the scratch fill first, then the precondition.

The fill writes every block of the scratch file sequentially, so a precondition run before it is undone and the
points measure the fill's state. The run loop runs on the fake executor; the unmeasured jobs go to a fio that keeps
each job file it is given, numbered in the order given. A precondition scoped to each write also runs before the
target's first point when that point writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from iolab.store.queries import run_phases
from tests.runner.fake_executor import FakeExecutor


def _run(tmp_path: Path, scope: str, rw: list[str]) -> int:
    target = tmp_path / "dir"
    target.mkdir()
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'name = "pre"\n[options]\nruntime = "1s"\nbs = "4k"\n[axes]\nrw = {rw!r}\n'.replace("'", '"')
        + f'[phases.precondition]\noptions = {{ rw = "randwrite", bs = "128k" }}\nscope = "{scope}"\n'
    )
    request = RunRequest(plan=str(plan), targets=[str(target)], telemetry_interval=None, size=64 << 20)
    outcome = execute(request, open_store(), SilentProgress(), executor=FakeExecutor())
    assert outcome.status == "complete"
    return outcome.run_id


def _given(jobs: Path) -> list[str]:
    """What each unmeasured job fio was given did, in the order given."""
    ordered = sorted(jobs.iterdir(), key=lambda p: int(p.stem))
    return ["precondition" if "bs=131072" in p.read_text() or "bs=128k" in p.read_text() else "fill" for p in ordered]


@pytest.mark.parametrize(
    ("scope", "rw", "preconditions"),
    [("once", ["randwrite", "randread"], 1), ("before_each_write", ["randwrite", "randread", "write"], 2)],
)
def test_the_scratch_fill_comes_first_and_a_precondition_before_each_write_the_first_too(
    tmp_path, kept_jobs, scope, rw, preconditions
):
    """The target's first point writes: a precondition before each write runs before it too (it did not)."""
    run_id = _run(tmp_path, scope, rw)
    assert _given(kept_jobs) == ["fill"] + ["precondition"] * preconditions  # fio's order of jobs
    recorded = sorted(run_phases(open_store(), run_id), key=lambda p: p.started)
    assert [p.kind for p in recorded if p.kind in ("fill", "precondition")] == _given(kept_jobs)  # as `show` lists
