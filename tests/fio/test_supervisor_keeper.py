"""fio's keeper, unit by unit in this process: what it finds below a process, when it says iolab is gone, what it
removes when orphaned, and the exit status it passes on. (tests/runner/test_kill.py and test_interrupt.py run
it as iolab does, as a script under a real run, end to end.)

Where the keeper starts a command, the command is a short shell one; whatever the keeper kills is limited to
the processes the test started (`descendants` of the keeper's own command), never the test runner's others."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iolab.fio import supervisor
from iolab.fio.supervisor import Keeper, descendants, signal_all

# The keeper execs the absolute path iolab checked (`programs`), never a name looked up on PATH.
SH, TRUE, TOUCH = (str(shutil.which(name)) for name in ("sh", "true", "touch"))


def _tree(tmp_path: Path) -> subprocess.Popen:
    """sh, with two sleeping children of its own, once both are started. The ready file is made by the shell's own
    redirection, not by `touch`: a `touch` child not yet reaped when the file appeared was a third process below
    (a fresh-clone CI run saw 3)."""
    ready = tmp_path / "ready"
    proc = subprocess.Popen(["sh", "-c", f"sleep 30 & sleep 30 & : > {ready}; wait"])
    deadline = time.monotonic() + 10
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return proc


def test_descendants_are_every_process_below_and_signal_all_reaches_each(tmp_path):
    proc = _tree(tmp_path)
    try:
        below = descendants(proc.pid)
        assert len(below) == 2 and proc.pid not in below
        assert all(int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1]) == proc.pid for p in below)
        assert proc.pid in descendants(os.getpid())
        assert set(below) <= set(descendants(os.getpid()))  # grandchildren too
        signal_all([*below, 2**22 + 1], signal.SIGKILL)  # a process gone already is no error
        proc.wait(timeout=10)
        assert descendants(proc.pid) == []
    finally:
        proc.kill()
        proc.wait()


def test_iolab_is_gone_when_its_end_of_the_lifeline_closes_and_not_before():
    lifeline, held = os.pipe()
    keeper = Keeper(lifeline, [TRUE])
    try:
        assert not keeper.iolab_gone(0)
        woken, wake = os.pipe()
        keeper.woken = woken
        os.write(wake, b"\x02")  # a signal's wakeup: read and drained, not taken for iolab's end
        assert not keeper.iolab_gone(0)
        assert not keeper.iolab_gone(0)
        os.close(held)
        assert keeper.iolab_gone(0)
        os.close(woken)
        os.close(wake)
    finally:
        os.close(lifeline)


def test_an_orphaned_keeper_never_starts_fio_and_removes_only_the_directory_it_was_given(tmp_path):
    lifeline, held = os.pipe()
    os.close(held)  # iolab died before the keeper started
    run_dir, other = tmp_path / "run", tmp_path / "other"
    for d in (run_dir, other):
        d.mkdir()
        (d / "job.fio").write_text("[x]\n")
    marker = tmp_path / "started"
    status = Keeper(lifeline, [TOUCH, str(marker)], str(run_dir)).run()
    os.close(lifeline)
    assert status == 128 + signal.SIGKILL
    assert not marker.exists() and not run_dir.exists() and (other / "job.fio").exists()
    lifeline, held = os.pipe()
    os.close(held)
    assert Keeper(lifeline, [TOUCH, str(marker)]).run() == 128 + signal.SIGKILL and other.exists()
    os.close(lifeline)


@pytest.fixture
def keeper_scope(monkeypatch):
    """The keeper runs here as it would as fio's parent, but it kills only what its own command started, and
    this process stops being a subreaper afterwards."""
    started: list[int] = []
    real = supervisor.descendants
    before = set(real(os.getpid()))
    monkeypatch.setattr(supervisor, "descendants", lambda pid: [p for p in real(os.getpid()) if p not in before])
    yield started
    ctypes.CDLL(None).prctl(36, 0)  # PR_SET_CHILD_SUBREAPER off
    for pid in started:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _run(command: list[str], keeper_scope: list[int], lifeline: int) -> tuple[Keeper, int]:
    keeper = Keeper(lifeline, command)
    start = keeper.start

    def started() -> None:
        start()
        keeper_scope.append(keeper.fio_pid)

    keeper.start = started  # type: ignore[method-assign]
    return keeper, keeper.run()


@pytest.mark.parametrize(("script", "status"), [("exit 0", 0), ("exit 3", 3), ("kill -TERM $$", 128 + signal.SIGTERM)])
def test_the_keeper_exits_with_fio_s_status_and_128_plus_the_signal_that_ended_it(keeper_scope, script, status):
    lifeline, held = os.pipe()
    try:
        keeper, got = _run([SH, "-c", script], keeper_scope, lifeline)
        assert got == status and keeper.fio_status == (status if status < 128 else -signal.SIGTERM)
    finally:
        os.close(held)
        os.close(lifeline)


def test_a_job_process_fio_leaves_behind_is_killed_when_fio_exits(keeper_scope, tmp_path):
    lifeline, held = os.pipe()
    left = tmp_path / "left.pid"
    try:
        _run([SH, "-c", f"setsid sleep 30 & echo $! > {left}"], keeper_scope, lifeline)
        pid = int(left.read_text())
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _alive(pid)
    finally:
        os.close(held)
        os.close(lifeline)


def test_a_command_that_cannot_start_is_127_with_the_reason(keeper_scope, tmp_path, capfd):
    lifeline, held = os.pipe()
    try:
        _, got = _run([str(tmp_path / "no-fio")], keeper_scope, lifeline)
    finally:
        os.close(held)
        os.close(lifeline)
    assert got == 127
    assert f"cannot start {tmp_path / 'no-fio'}: No such file or directory" in capfd.readouterr().err


def test_iolab_dying_mid_run_kills_fio_and_removes_its_directory(tmp_path):
    """As iolab starts it: a script whose lifeline's write end is iolab's only; closing it is iolab's death."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    read, write = os.pipe()
    ran = tmp_path / "ran.pid"
    keeper = subprocess.Popen(
        [sys.executable, "-I", supervisor.__file__, str(read), "--remove", str(run_dir), "--", SH, "-c",
         f"echo $$ > {ran}; exec sleep 30"],
        pass_fds=(read,),
    )  # fmt: skip
    os.close(read)
    deadline = time.monotonic() + 10
    while not (ran.exists() and ran.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.01)
    fio = int(ran.read_text())
    os.close(write)
    assert keeper.wait(timeout=10) == 128 + signal.SIGKILL
    assert not run_dir.exists() and not _alive(fio)
