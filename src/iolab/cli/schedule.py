"""`iolab schedule install|list|remove`: run a plan every N minutes, hours or days (systemd timer or cron)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from iolab.cli.application import app

schedule_app = typer.Typer(
    help="Run a plan on a schedule (systemd timer, or cron without systemd).", no_args_is_help=True
)
app.add_typer(schedule_app, name="schedule")

# Hidden: tests (and packagers) point these at scratch places; when set, nothing is activated with systemctl.
UnitDir = Annotated[Path | None, typer.Option("--unit-dir", hidden=True)]
CronFile = Annotated[Path | None, typer.Option("--cron-file", hidden=True)]


def _places(unit_dir: Path | None, cron_file: Path | None) -> tuple[Path, Path]:
    from iolab.schedule import CRON_FILE, SYSTEMD_UNIT_DIR

    return unit_dir or SYSTEMD_UNIT_DIR, cron_file or CRON_FILE


def scheduled_argv() -> list[str]:
    """What the timer runs before the plan path: this Python and this iolab, so the venv is the one installed."""
    return [sys.executable, "-m", "iolab", "run", "--quiet"]


@schedule_app.command("install")
def install(
    plan: Annotated[Path, typer.Argument(help="The plan file (TOML or fio job file) to run.")],
    every: Annotated[str, typer.Option("--every", help="Interval: 30m, 1h, 6h, 1d ...")],
    name: Annotated[str | None, typer.Option("--name", help="Schedule name (default: the plan file's name).")] = None,
    allow_commands: Annotated[
        bool,
        typer.Option("--allow-commands", help="Let the scheduled runs run the programs the plan names (listed first)."),
    ] = False,
    unit_dir: UnitDir = None,
    cron_file: CronFile = None,
) -> None:
    """Run PLAN every --every with `iolab run PLAN --quiet`; a run still going when the next is due is skipped.

    Scheduled runs run unattended, often as root: the plan must name its own
    targets, and what it writes and runs is shown before it is installed.
    """
    import subprocess

    from iolab.errors import UserError
    from iolab.schedule import activation_commands
    from iolab.schedule import install as install_schedule

    argv = scheduled_argv() + (["--allow-commands"] if allow_commands else [])
    _show_effects(plan, allow_commands)
    units, cron = _places(unit_dir, cron_file)
    use_systemd = True if unit_dir else False if cron_file else None
    schedule_name = name or re.sub(r"[^A-Za-z0-9_.-]", "-", plan.stem).lstrip("-._") or "plan"
    written = install_schedule(
        plan, every, schedule_name, argv, unit_dir=units, use_systemd=use_systemd, cron_file=cron
    )
    for path in written:
        print(f"wrote {path}")
    if any(path.suffix == ".timer" for path in written) and unit_dir is None:
        for argv in activation_commands(schedule_name):
            done = subprocess.run(argv, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise UserError(f"{' '.join(argv)} failed: {done.stderr.strip() or done.returncode}")
    print(f"scheduled {schedule_name}: {plan.expanduser().absolute()} every {every.strip()}")


def _show_effects(plan_path: Path, allow_commands: bool) -> None:
    """Print what the plan writes and runs; UserError when it names no target or runs programs not allowed."""
    from iolab.errors import UserError
    from iolab.plan.effects import check_commands, plan_commands, plan_writes
    from iolab.plan.planfile import load_plan

    if not plan_path.is_file():
        raise UserError(f"plan {plan_path} does not exist; give the path of a plan file to run on schedule")
    plan = load_plan(plan_path)
    if not plan.targets and not all(w.target for w in plan.workloads):
        raise UserError(
            f'{plan_path}: a scheduled plan must name its targets (targets = ["/mnt/test"] in the plan, '
            "or filename= in a job file): cron and systemd would run it in their own working directory"
        )
    for line in plan_writes(plan) or ["nothing but a scratch file in each directory target (removed afterwards)"]:
        print(f"writes: {line}")
    for line in plan_commands(plan):
        print(f"runs: {line}")
    check_commands(plan, allow_commands)


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
    import subprocess

    from iolab.schedule import deactivation_commands, list_installed
    from iolab.schedule import remove as remove_schedule

    units, cron = _places(unit_dir, cron_file)
    is_timer = any(s.name == name and s.kind == "systemd" for s in list_installed(units, cron))
    if is_timer and unit_dir is None:
        for argv in deactivation_commands(name):
            subprocess.run(argv, capture_output=True, check=False)  # a timer that was never started is fine to delete
    for path in remove_schedule(name, units, cron):
        print(f"removed {name} from {path}")
    if is_timer and unit_dir is None:
        subprocess.run(["systemctl", "daemon-reload"], capture_output=True, check=False)
