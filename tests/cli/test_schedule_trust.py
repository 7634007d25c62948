"""A schedule root installs reads its plan again at every run, with the rights given at install (--allow-write,
--allow-commands): a plan, a job file it names, or a directory above them that another user can change let that
user decide what root runs every hour, long after the plan was checked and shown. `iolab schedule install`
refuses them (`input-owner-chain`, `pathchain.check_input`), in two lines, exit 2. Uid 65534 is a forked child
that drops to it; with the check switched off, its rewrite after install is what the next run would run."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab import guards
from iolab.plan.effects import plan_commands
from iolab.plan.planfile import load_plan
from tests.in_process import assert_clean_error, iolab
from tests.other_user import as_other_user, public_dir

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: uid 65534 acts as the other user")
PLAN = '[options]\nrw = "randread"\nsize = "1m"\n'


@pytest.fixture
def public() -> Iterator[Path]:
    """A root directory in /tmp uid 65534 can reach (tmp_path's parents are 0700), holding a directory of theirs."""
    with public_dir("iolab-schedule-trust-") as top:
        yield top


def _install(plan: Path, target: Path, cron: Path):  # type: ignore[no-untyped-def]
    return iolab("schedule", "install", str(plan), str(target), "--every", "1h", "--cron-file", str(cron))


@pytest.mark.parametrize("where", ["their directory", "open to all", "a job file of theirs"])
def test_a_plan_another_user_can_change_is_not_scheduled(public, tmp_path, where):
    cron = tmp_path / "cron.d" / "iolab"
    if where == "their directory":
        plan = public / "theirs" / "nightly.toml"
        as_other_user(lambda: plan.write_text(PLAN))
    elif where == "open to all":
        plan = public / "nightly.toml"
        plan.write_text(PLAN)
        plan.chmod(0o666)
    else:
        job = public / "theirs" / "job.fio"
        as_other_user(lambda: job.write_text("[j]\nrw=randread\nsize=1m\n"))
        plan = public / "nightly.toml"
        plan.write_text(f'job = "{job}"\n')
    said = assert_clean_error(_install(plan, tmp_path, cron))
    assert len(said.strip().splitlines()) == 2 and "another user could change what iolab reads" in said
    assert "Fix:" in said and not cron.exists()


def test_switched_off_the_user_rewrites_what_every_scheduled_run_runs(public, tmp_path):
    """The attack: installed from uid 65534's directory, the plan is theirs to rewrite after the check; the
    next scheduled run (`--allow-commands` given at install) would run their program as root."""
    cron = tmp_path / "cron.d" / "iolab"
    plan = public / "theirs" / "nightly.toml"
    as_other_user(lambda: plan.write_text(PLAN))
    with guards.switched_off("input-owner-chain"):
        installed = _install(plan, tmp_path, cron)
    assert installed.returncode == 0, installed.stderr
    as_other_user(lambda: plan.write_text(PLAN + "[phases]\npre_point = [\"sh -c 'cat /etc/shadow > /tmp/x'\"]\n"))
    assert any("/etc/shadow" in line for line in plan_commands(load_plan(plan)))


def test_a_module_another_user_put_where_the_schedule_starts_is_never_imported(public):
    """A schedule installed from /tmp (or a user's directory) starts every run there; `python -m` would put
    that directory first on the module path, and uid 65534's `iolab/` there would run as root each time."""
    from iolab.cli.schedule import scheduled_argv

    planted = public / "theirs"
    marker = planted / "ran-as-root"

    def plant() -> None:
        (planted / "iolab").mkdir()
        for name in ("__init__.py", "__main__.py"):
            (planted / "iolab" / name).write_text(f"open({str(marker)!r}, 'w').write('root ran it')\n")

    as_other_user(plant)
    argv = scheduled_argv()
    command = [*argv[: argv.index("iolab") + 1], "--help"]  # the interpreter and module as the unit runs them
    done = subprocess.run(command, cwd=planted, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "the scheduled command imported uid 65534's module"


def test_the_lock_schedules_share_lies_in_the_home_not_where_anyone_may_create_it(tmp_path):
    """It was /run/lock/iolab.lock, in a directory anyone may add to: any user could make it first and hold it
    (every scheduled root run skipped as busy), or put a link there that flock(1) opens O_CREAT as root. The
    lock is now in IOLAB_HOME (made at install, its chain checked), where only root and its owner can write."""
    cron = tmp_path / "cron.d" / "iolab"
    home = tmp_path / "lab"
    plan = tmp_path / "nightly.toml"
    plan.write_text(f'targets = ["{tmp_path}"]\n' + PLAN)
    installed = iolab(
        "schedule", "install", str(plan), "--every", "1h", "--cron-file", str(cron), env={"IOLAB_HOME": str(home)}
    )
    assert installed.returncode == 0, installed.stderr
    assert f"flock -n -E 75 {home / 'schedule.lock'} " in cron.read_text()
    assert home.is_dir() and "/run/lock" not in cron.read_text()


@pytest.mark.parametrize("what", ["interpreter", "module path"])
def test_a_python_or_module_path_another_user_can_change_is_not_scheduled(public, tmp_path, monkeypatch, what):
    """Every scheduled run starts this Python and imports iolab from its module path, as root, each hour: a venv
    of uid 65534's (their interpreter, or a site-packages directory of theirs on the path) would be theirs to
    rewrite after install (`programs.check_python`, `program-owner-chain`). Their file is never run here."""
    cron = tmp_path / "cron.d" / "iolab"
    plan = tmp_path / "nightly.toml"
    plan.write_text(PLAN)
    theirs = public / "theirs"
    if what == "interpreter":
        python = theirs / "python3"
        as_other_user(lambda: python.write_text("#!/bin/sh\necho uid 65534 runs as root\n"))
        monkeypatch.setattr(sys, "executable", str(python))
    else:
        monkeypatch.setattr(sys, "path", [*sys.path, str(theirs)])
    said = assert_clean_error(_install(plan, tmp_path, cron))
    assert len(said.strip().splitlines()) == 2 and "another user could change what iolab runs there" in said
    assert f"{public}/theirs" in said and not cron.exists()
    with guards.switched_off("program-owner-chain"):
        assert _install(plan, tmp_path, cron).returncode == 0  # the attack: their file in root's schedule
    assert (str(python) if what == "interpreter" else "flock") in cron.read_text()
