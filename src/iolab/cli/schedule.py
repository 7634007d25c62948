"""`iolab schedule install|list|remove`: run a plan every N minutes, hours or days (systemd timer or cron)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from iolab import programs
from iolab.cli.application import app
from iolab.cli.request_flags import RunFlags, build_request, run_flags

if TYPE_CHECKING:
    from iolab.runner.dryrun import DryRun
    from iolab.schedule import Entry

schedule_app = typer.Typer(
    help="Run a plan on a schedule (systemd timer, or cron without systemd).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(schedule_app, name="schedule")

# Hidden: tests (and packagers) point these at scratch places; when set, nothing is activated with systemctl.
UnitDir = Annotated[Path | None, typer.Option("--unit-dir", hidden=True)]
CronFile = Annotated[Path | None, typer.Option("--cron-file", hidden=True)]
LockFile = Annotated[Path | None, typer.Option("--lock-file", hidden=True)]  # default: IOLAB_HOME/schedule.lock


def _places(unit_dir: Path | None, cron_file: Path | None) -> tuple[Path, Path]:
    from iolab.schedule import CRON_FILE, SYSTEMD_UNIT_DIR

    return unit_dir or SYSTEMD_UNIT_DIR, cron_file or CRON_FILE


def scheduled_argv() -> list[str]:
    """What the timer runs before the plan path: this Python and this iolab, so the venv is the one installed.

    `--fresh`: each scheduled run is a run of its own, never a reopened one an earlier (killed) invocation
    left unfinished, so a series of scheduled runs stays one run per time. `-P`: `python -m` puts the working
    directory first on the module path, and the run starts in the directory the schedule was installed from
    (/tmp, a user's): any module there (`iolab/`, `json.py`) another user put would run as root at every run.
    """
    return [sys.executable, "-P", "-m", "iolab", "run", "--quiet", "--fresh"]


@schedule_app.command("install")
@run_flags(scheduled=True)
def install(
    plan: Annotated[Path, typer.Argument(help="The plan file (TOML or fio job file) to run.")],
    every: Annotated[str, typer.Option("--every", help="Interval: 30m, 1h, 6h, 1d ...")],
    targets: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="TARGET",
            help="Directories, files or devices to run it on (default: the plan's own targets).",
            show_default=False,
        ),
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="Schedule name (default: the plan file's name).")] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the unit files (or cron line) and the exact command; install nothing."),
    ] = False,
    unit_dir: UnitDir = None,
    cron_file: CronFile = None,
    lock_file: LockFile = None,
    *,
    flags: RunFlags,
) -> None:
    """Run PLAN every --every with `iolab run --quiet PLAN [TARGET...]` and the run options given here (those of
    `iolab run` a schedule can use); a run still going when the next is due is skipped.

    Every run stores into the IOLAB_HOME in effect now and starts in the current directory, whoever starts it
    (systemd or cron pass on neither), so `iolab ls` and `iolab history` here see them. The run is checked
    as `iolab run --dry-run` would check it (targets, free space for --size or the plan's sizes, programs),
    and what it writes and runs is shown, before anything is installed.
    """
    import os

    from iolab.schedule import prepare
    from iolab.store.db import home_dir

    absolute = [os.path.abspath(target) for target in targets or []]
    _check_run(plan, absolute, flags)
    units, cron = _places(unit_dir, cron_file)
    schedule_name = name or re.sub(r"[^A-Za-z0-9_.-]", "-", plan.stem).lstrip("-._") or "plan"
    entry = prepare(
        plan,
        every,
        schedule_name,
        scheduled_argv() + flags.argv(),
        home=home_dir().expanduser().absolute(),
        workdir=Path.cwd(),
        targets=absolute,
        unit_dir=units,
        use_systemd=True if unit_dir else False if cron_file else None,
        cron_file=cron,
        lock_path=lock_file,
    )
    _install(entry, every, activate=entry.kind == "systemd" and unit_dir is None, dry_run=dry_run)


def _install(entry: Entry, every: str, activate: bool, dry_run: bool) -> None:
    """Write the entry's files and start its timer (with `activate`), or print them (`dry_run`)."""
    from iolab import pathchain
    from iolab.errors import UserError
    from iolab.schedule import activation_commands, write

    if dry_run:
        _print_entry(entry, every, activate)
        return
    pathchain.make_dirs(str(entry.home))  # the home holds the lock flock opens before the first run makes it
    for path in write(entry):
        print(f"wrote {path}")
    if activate:
        for command in activation_commands(entry.name):
            done = programs.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise UserError(f"{' '.join(command)} failed: {done.stderr.strip() or done.returncode}")
    print(f"command: {entry.shell_line()}")
    print(f"scheduled {entry.name}: every {every.strip()}, results in {entry.home}")


def _print_entry(entry: Entry, every: str, activate: bool) -> None:
    """What installing would write and run (`--dry-run`)."""
    from iolab.schedule import activation_commands

    for path, text in entry.files.items():
        print(f"--- {path}\n{text}", end="" if text.endswith("\n") else "\n")
    for command in activation_commands(entry.name) if activate else []:
        print(f"then runs: {' '.join(command)}")
    print(f"command: {entry.shell_line()}")
    print(f"nothing installed (--dry-run): {entry.name} would run every {every.strip()}")


def _check_run(plan_path: Path, targets: list[str], flags: RunFlags) -> None:
    """The scheduled run checked now as `iolab run --dry-run` checks it, printing what it writes and runs.

    UserError when the plan and the command line name no target (a scheduled run has no directory of the
    user's to fall back on), or when the run would be refused: a target missing or too small, programs not
    allowed. A schedule that fails every hour is worse than one never installed. Also when the plan, a job
    file it names, or a directory above them is one another user could change: every scheduled run reads
    them again, with the rights (and --allow-write, --allow-commands) given here; and when the Python and iolab
    every run starts are (`programs.check_python`).
    """
    from iolab import pathchain
    from iolab.errors import UserError
    from iolab.plan.effects import plan_commands
    from iolab.plan.planfile import load_plan, plan_inputs
    from iolab.runner.dryrun import dry_run

    if not plan_path.is_file():
        raise UserError(f"plan {plan_path} does not exist; give the path of a plan file to run on schedule")
    programs.check_python()  # what every scheduled run starts, as root, unattended
    for read in plan_inputs(plan_path):
        if read.exists():  # a missing job file is load_plan's to name
            pathchain.check_input(str(read))
    plan = load_plan(plan_path)
    if not (targets or flags.devices or plan.targets or all(w.target for w in plan.workloads)):
        raise UserError(
            f"{plan_path}: a scheduled run must name its targets: after the plan (iolab schedule install PLAN DIR), "
            'as targets = ["/mnt/test"] in the plan, or as filename= in a job file'
        )
    for line in plan_commands(plan):  # before the check, which may refuse them
        print(f"runs: {line}")
    _print_planned(dry_run(build_request(flags, str(plan_path.expanduser().absolute()), targets)))


def _print_planned(planned: DryRun) -> None:
    """What the scheduled run will write, touch, run and change, as `run --dry-run` says it."""
    said = (
        ("note", planned.notes),
        ("writes", planned.writes or ["nothing: reads only"]),
        ("fio touches", planned.manifest.lines()),
        ("runs", planned.commands),
        ("changes", planned.changes),
    )
    for what, lines in said:
        for line in lines:
            print(f"{what}: {line}")


@schedule_app.command("list")
def list_schedules(unit_dir: UnitDir = None, cron_file: CronFile = None) -> None:
    """The installed schedules: name, interval, plan, and where each is kept."""
    from iolab.schedule import list_installed

    found = list_installed(*_places(unit_dir, cron_file))
    if not found:
        print("No schedules installed: add one with `iolab schedule install PLAN --every 1h`.")
    for s in found:
        print(f"{s.name}\tevery {s.every}\t{s.plan_path}\t{s.kind}: {', '.join(str(f) for f in s.files)}")


@schedule_app.command("remove")
def remove(
    name: Annotated[str, typer.Argument(help="Schedule name from `iolab schedule list`.")],
    unit_dir: UnitDir = None,
    cron_file: CronFile = None,
) -> None:
    """Stop and delete a schedule (the results of its runs are kept)."""
    from iolab.schedule import deactivation_commands, list_installed
    from iolab.schedule import remove as remove_schedule

    units, cron = _places(unit_dir, cron_file)
    is_timer = any(s.name == name and s.kind == "systemd" for s in list_installed(units, cron))
    if is_timer and unit_dir is None:
        for argv in deactivation_commands(name):
            programs.run(argv, capture_output=True, check=False)  # a timer that was never started is fine to delete
    for path in remove_schedule(name, units, cron):
        print(f"removed {name} from {path}")
    if is_timer and unit_dir is None:
        programs.run(["systemctl", "daemon-reload"], capture_output=True, check=False)
