"""The keeper told to kill everything while fio runs (SIGTERM or SIGHUP: `kill_all`) kills every process below
it and exits 137, as a shell reports a process ended by SIGKILL: iolab reads that status as "killed", not as
fio's own failure. The orphaned path (iolab gone) was tested for 137; this one was not (fresh seed 72811
found 128 + SIGKILL -> 129 + SIGKILL survived)."""

from __future__ import annotations

from iolab.fio.supervisor import Keeper


def test_told_to_kill_all_while_fio_runs_it_kills_everything_and_exits_137(monkeypatch):
    keeper = Keeper(-1, ["fio", "job.fio"])
    done: list[str] = []
    monkeypatch.setattr(keeper, "iolab_gone", lambda wait: False)  # iolab is there
    monkeypatch.setattr(keeper, "start", lambda: done.append("started"))  # fio "runs": its status stays None
    monkeypatch.setattr(keeper, "kill_everything", lambda: done.append("killed everything"))
    monkeypatch.setattr(keeper, "reap", lambda: done.append("reaped"))
    keeper.kill_all = True
    assert keeper.run() == 137
    assert done == ["started", "killed everything"]  # fio's status never came: nothing reaped as fio's
