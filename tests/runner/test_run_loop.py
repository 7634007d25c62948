"""The run loop through `runner.execute`'s real code, on the fake executor (fio's saved outputs, no fio).

Points and repeats in order, a failed point kept apart from the finished ones, Ctrl-C and SIGTERM in the
middle of a point, resume, refusals before anything runs, and stopping when the number is known. Each
test takes milliseconds; the same paths against the real fio are tests/runner/test_plans_run.py,
test_interrupt.py and test_stopping_loopdev.py.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from iolab.errors import RunFailed, UserError
from iolab.fio.parse import aggregate, parse_output
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from iolab.store.queries import get_run, run_points
from tests.runner.fake_executor import DATA, Answer, FakeExecutor

PLAN = """
name = "loop"
[options]
runtime = "1s"
[axes]
rw = ["randread", "read"]
iodepth = [1, 4]  # the saved output is a 4k read: a 64k point would break IOPS x bs = bandwidth
[repeat]
count = 2
"""


@pytest.fixture(autouse=True)
def no_perf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """perf counts every CPU beside each point where it can: hidden, so these tests do not depend on it."""
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """A file of the user's, read only: no scratch file to write, nothing for fio to lay out."""
    path = tmp_path / "data.img"
    path.write_bytes(b"\0" * (4 << 20))
    return path


def _request(tmp_path: Path, target: Path, plan: str = PLAN, **changes) -> RunRequest:
    path = tmp_path / "plan.toml"
    path.write_text(plan)
    request = RunRequest(plan=str(path), targets=[str(target)], telemetry_interval=None)
    for name, value in changes.items():
        setattr(request, name, value)
    return request


def _run(request: RunRequest, executor: FakeExecutor, **kwargs):
    return execute(request, open_store(), SilentProgress(), executor=executor, **kwargs)


def _saved(name: str):
    parsed = parse_output((DATA / name).read_text())
    return aggregate([e for g in parsed.groups for e in g.entries], parsed.version)


def test_every_point_and_repeat_runs_once_in_plan_order_and_is_stored_as_fio_reported_it(tmp_path, target):
    executor = FakeExecutor(script=lambda point, n: Answer(logs="logs" if n == 0 else None))
    outcome = _run(_request(tmp_path, target), executor)
    assert outcome.status == "complete" and not outcome.failed
    records = run_points(open_store(), outcome.run_id)
    assert [r.point.key for r in records] == [p.key for p in executor.ran]  # stored in the order they ran
    assert len(executor.ran) == 8 and len({p.key for p in executor.ran}) == 8  # 4 workloads x 2 repeats
    assert sorted(p.repeat for p in executor.ran) == [0] * 4 + [1] * 4
    assert all(r.status == "ok" and r.result == _saved("randread-4jobs.json") for r in records)
    assert executor.closed


def test_a_failing_point_is_kept_apart_and_the_others_finish(tmp_path, target):
    failing = Answer(output="job-error.json", returncode=1, stderr="fio: io_u error, error=Invalid argument\n")
    executor = FakeExecutor(script=lambda point, n: failing if n == 2 else Answer())
    outcome = _run(_request(tmp_path, target), executor)
    assert outcome.status == "partial"
    (failed,) = outcome.failed
    assert failed.startswith(f"{executor.ran[2].name} on {target}") and "error=Invalid argument" in failed
    statuses = [r.status for r in run_points(open_store(), outcome.run_id)]
    assert statuses.count("ok") == 7 and statuses[2] == "failed"


def test_a_point_whose_fio_hung_fails_alone(tmp_path, target):
    executor = FakeExecutor(
        script=lambda point, n: Answer(raises=RunFailed("fio hung: killed")) if n == 0 else Answer()
    )
    outcome = _run(_request(tmp_path, target), executor)
    assert outcome.status == "partial" and outcome.failed[0].endswith("fio hung: killed")
    assert len(executor.ran) == 8


def test_every_point_failing_is_a_failed_run(tmp_path, target):
    executor = FakeExecutor(script=lambda point, n: Answer(output="job-error.json", returncode=1))
    outcome = _run(_request(tmp_path, target), executor)
    assert outcome.status == "failed" and len(outcome.failed) == 8


@pytest.mark.parametrize(
    "interrupt",
    [
        Answer(raises=KeyboardInterrupt()),
        Answer(before=lambda: os.kill(os.getpid(), signal.SIGTERM)),  # a service manager's stop
        Answer(before=lambda: os.kill(os.getpid(), signal.SIGHUP)),  # the terminal closed
    ],
    ids=["ctrl-c", "sigterm", "sighup"],
)
def test_interrupted_mid_point_keeps_what_finished_and_resume_runs_only_the_rest(tmp_path, target, interrupt):
    first = FakeExecutor(script=lambda point, n: interrupt if n == 3 else Answer())
    request = _request(tmp_path, target)
    with pytest.raises(
        RunFailed, match=r"interrupted: 3 points finished and are kept in run 1; `iolab run --resume 1`"
    ):
        _run(request, first)
    assert get_run(open_store(), 1).status == "interrupted" and first.closed
    assert [r.status for r in run_points(open_store(), 1)].count("ok") == 3
    again = FakeExecutor()
    outcome = _run(request, again, resume=1)
    assert outcome.run_id == 1 and outcome.status == "complete" and outcome.skipped == 3
    assert again.ran[0].key == first.ran[3].key  # the point interrupted is run first, from its start
    assert {p.key for p in first.ran[:3]}.isdisjoint(p.key for p in again.ran)  # finished points not run again
    assert len(again.ran) == 5 and all(r.status == "ok" for r in run_points(open_store(), 1))


def test_the_same_plan_again_resumes_the_interrupted_run_and_fresh_starts_a_new_one(tmp_path, target):
    request = _request(tmp_path, target)
    with pytest.raises(RunFailed):
        _run(request, FakeExecutor(script=lambda point, n: Answer(raises=KeyboardInterrupt()) if n == 5 else Answer()))
    again = FakeExecutor()
    assert _run(request, again).run_id == 1 and len(again.ran) == 3
    fresh = FakeExecutor()
    assert _run(request, fresh, fresh=True).run_id == 2 and len(fresh.ran) == 8


def test_writes_on_a_read_only_target_are_refused_before_a_run_exists(tmp_path, target):
    executor = FakeExecutor()
    plan = 'name = "w"\n[options]\nrw = "randwrite"\nruntime = "1s"\n'
    with pytest.raises(UserError, match="nothing to run: .* cannot take job .writes need --allow-write"):
        _run(_request(tmp_path, target, plan), executor)
    assert executor.ran == [] and open_store().conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_a_target_another_run_holds_is_refused_and_the_holder_finishes(tmp_path, target):
    refused: list[str] = []
    second = FakeExecutor()

    def start_a_second_run() -> None:
        with pytest.raises(UserError, match="in use") as caught:
            _run(_request(tmp_path, target), second)
        refused.append(str(caught.value))

    holder = FakeExecutor(script=lambda point, n: Answer(before=start_a_second_run) if n == 0 else Answer())
    outcome = _run(_request(tmp_path, target), holder)
    assert outcome.status == "complete" and len(refused) == 1 and second.ran == []


STOPPING_PLAN = 'name = "s"\n[options]\nrw = "randread"\n'


def test_a_point_stops_when_its_number_is_known_and_keeps_fio_s_final_document(tmp_path, target):
    executor = FakeExecutor(script=lambda point, n: Answer(output="stopping/status-interval-12s.json"))
    stopping = {"target_ci": "5%", "min_s": 3, "max_s": 30}
    outcome = _run(_request(tmp_path, target, STOPPING_PLAN, stopping=stopping), executor)
    assert outcome.status == "complete" and executor.stopped == ["job"]
    (record,) = run_points(open_store(), outcome.run_id)
    stopped = record.result.stopping
    assert stopped is not None and stopped.target == 0.05 and stopped.reason == "target met"
    (ran,) = executor.ran
    assert ran.options["runtime"] == "30s"  # fio's end is max_s
    assert "time_based" not in ran.options  # a job bounded by its size stays so: stopping ends it sooner, never later


def test_a_stopping_rule_never_met_runs_to_fio_s_end(tmp_path, target):
    executor = FakeExecutor(script=lambda point, n: Answer(output="stopping/status-interval.json"))  # 3 s
    outcome = _run(_request(tmp_path, target, STOPPING_PLAN, stopping={"target_ci": "5%", "min_s": 1}), executor)
    assert outcome.status == "complete" and executor.stopped == []
    (record,) = run_points(open_store(), outcome.run_id)
    assert record.result.stopping is not None and record.result.stopping.reason == "fio's runtime"


def test_a_failing_point_exits_3_from_the_command_line_with_one_line_and_the_others_kept(
    tmp_path, target, monkeypatch, capsys
):
    """`iolab run` itself, its executor the fake: the command's exit code and message for a failed point."""
    from iolab.cli import main

    failing = Answer(output="job-error.json", returncode=1, stderr="fio: io_u error, error=Invalid argument\n")
    fake = FakeExecutor(script=lambda point, n: failing if n == 1 else Answer())
    plan = _request(tmp_path, target).plan
    monkeypatch.setattr("iolab.runner.execute.fio_version", lambda fio: fake.fio_version)
    monkeypatch.setattr("iolab.runner.execute._start_executor", lambda request, plan, version: fake)
    argv = ["iolab", "run", plan, str(target), "--no-telemetry", "--quiet", "--no-report"]
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 3
    (message,) = capsys.readouterr().err.strip().splitlines()
    assert message.startswith("iolab: 1 point(s) failed, the others are kept in run 1: ")
    assert message.endswith("error=Invalid argument")
    assert [r.status for r in run_points(open_store(), 1)].count("ok") == 7


def _remeasuring(tmp_path, target, monkeypatch, busy, points: int):
    """A run of `points` points whose n-th measurement (0-based, in the order fio ran) `busy(n)` finds
    disturbed, with re-measuring on as the quick preset has it."""
    from dataclasses import replace

    from iolab.runner import execute as execute_module
    from iolab.runner.request import build_plan

    depths = list(range(1, points + 1))
    request = _request(tmp_path, target, f'name = "busy"\n[options]\nruntime = "1s"\n[axes]\niodepth = {depths}\n')
    executor = FakeExecutor()
    monkeypatch.setattr(execute_module.Session, "_disturbed", lambda self, point: busy(len(executor.ran) - 1))
    plan = replace(build_plan(request), rerun_disturbed=True)
    return _run(request, executor, plan=plan), executor


def test_a_busy_host_costs_one_point_measured_again_not_every_point(tmp_path, target, monkeypatch):
    """Issue 42 item 1: on a busy host every point was measured twice. A point busy again when measured
    again means the host is busy, not the moment: no more re-measures, and the run says so."""
    outcome, executor = _remeasuring(tmp_path, target, monkeypatch, lambda n: True, points=10)
    keys = [p.key for p in executor.ran]
    assert len(keys) == 11 and keys[0] == keys[1] and len(set(keys)) == 10  # the first point twice
    assert outcome.status == "complete"
    assert any("kept as measured" in note for note in outcome.notes), outcome.notes


def test_passing_disturbances_are_measured_again_within_a_tenth_of_the_run(tmp_path, target, monkeypatch):
    """Each disturbance passes (every other measurement is busy, so each re-measure is quiet): at most a
    tenth of the points (at least one) are measured again; the rest are kept as measured, and said."""
    outcome, executor = _remeasuring(tmp_path, target, monkeypatch, lambda n: n % 2 == 0, points=20)
    keys = [p.key for p in executor.ran]
    assert len(keys) == 22 and keys[0] == keys[1] and keys[2] == keys[3] and len(set(keys)) == 20
    assert any("kept as measured" in note for note in outcome.notes), outcome.notes
