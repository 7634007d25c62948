"""A plan's pre- and post-point commands through the real run loop on the fake executor: refused without
--allow-commands, run around each point in order and kept as phases, and a failing pre-point command fails its
point alone with the command named."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from iolab.store.queries import run_phases, run_points
from tests.runner.fake_executor import FakeExecutor


@pytest.fixture(autouse=True)
def no_perf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{tmp_path / 'no-tools'}:/usr/bin:/bin")


def _plan(tmp_path: Path, pre: str, post: str) -> RunRequest:
    target = tmp_path / "data.img"
    target.write_bytes(b"\0" * (4 << 20))
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'name = "cmds"\n[options]\nruntime = "1s"\nrw = "randread"\n[axes]\niodepth = [1, 4]\n'
        f"[phases]\npre_point = {pre}\npost_point = {post}\n"
    )
    return RunRequest(plan=str(plan), targets=[str(target)], telemetry_interval=None)


def test_commands_need_allow_commands_and_run_around_each_point_in_order(tmp_path):
    log = tmp_path / "log"
    pre = f'[["sh", "-c", "echo pre >> {log}"]]'
    post = f"[\"sh -c 'echo post >> {log}'\"]"
    request = _plan(tmp_path, pre, post)
    with pytest.raises(UserError) as refused:
        execute(request, open_store(), SilentProgress(), executor=FakeExecutor())
    said = str(refused.value)
    assert said.startswith("plan cmds runs programs or changes the system: before each point: sh -c 'echo pre >> ")
    assert "; after each point: sh -c 'echo post >> " in said and "Run it with --allow-commands" in said
    assert not log.exists()
    request.allow_commands = True
    outcome = execute(request, open_store(), SilentProgress(), executor=FakeExecutor())
    assert outcome.status == "complete" and log.read_text() == "pre\npost\npre\npost\n"
    phases = run_phases(open_store(), outcome.run_id)
    points = [r.id for r in run_points(open_store(), outcome.run_id)]
    kept = [(p.kind, p.subject, p.outcome, p.point_id) for p in phases if p.kind.endswith("command")]
    pre_line, post_line = (
        shlex.join(["sh", "-c", f"echo pre >> {log}"]),
        shlex.join(["sh", "-c", f"echo post >> {log}"]),
    )
    assert kept == [
        ("pre command", pre_line, "ok", points[0]),
        ("post command", post_line, "ok", points[0]),
        ("pre command", pre_line, "ok", points[1]),
        ("post command", post_line, "ok", points[1]),
    ]


def test_a_failing_pre_point_command_fails_its_point_and_a_failing_post_one_is_a_problem(tmp_path):
    flag = tmp_path / "fail-once"
    flag.write_text("")
    pre = f'[["sh", "-c", "if [ -e {flag} ]; then rm {flag}; exit 1; fi"]]'
    request = _plan(tmp_path, pre, '[["false"]]')
    request.allow_commands = True
    executor = FakeExecutor()
    outcome = execute(request, open_store(), SilentProgress(), executor=executor)
    assert outcome.status == "partial" and len(executor.ran) == 1  # the first point's fio never started
    (failed,) = outcome.failed
    assert failed.endswith(
        f"pre-point command failed: {shlex.join(['sh', '-c', f'if [ -e {flag} ]; then rm {flag}; exit 1; fi'])}"
    )
    phases = [(p.kind, p.outcome) for p in run_phases(open_store(), outcome.run_id) if p.kind.endswith("command")]
    assert phases[0][0] == "pre command" and phases[0][1] != "ok"
    assert phases[1:] == [("pre command", "ok"), ("post command", phases[2][1])] and phases[2][1] != "ok"
