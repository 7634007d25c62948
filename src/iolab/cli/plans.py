"""Commands about plans: `presets` (what is built in) and `plan check` (validate a plan file)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from iolab.cli.application import app
from iolab.errors import UserError

if TYPE_CHECKING:
    from iolab.models import Plan, Workload

plan_app = typer.Typer(help="Check and inspect plan files.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(plan_app, name="plan")


@app.command()
def presets() -> None:
    """List the built-in plans: name, what each measures, estimated duration per target."""
    from iolab.models.units import duration
    from iolab.plan.estimate import estimate_seconds
    from iolab.plan.presets import PRESETS

    for entry in PRESETS.values():
        plan = entry.build()
        capped = any(not w.job.time_based for w in plan.workloads)
        bound = "up to " if plan.open_ended or capped else ""
        extra = " + precondition" if plan.phases.precondition else ""
        estimate = f"{bound}{duration(estimate_seconds(plan))}{extra}"
        typer.echo(f"{entry.name:<14} {estimate:<26} {entry.measures}")


@plan_app.command("check")
def check(file: Path = typer.Argument(..., help="A TOML plan (*.toml) or a fio job file.")) -> None:
    """Validate a plan and print the points it expands to (exit 2 on errors)."""
    from iolab.models.units import duration
    from iolab.plan.effects import plan_commands, plan_settings, plan_writes
    from iolab.plan.estimate import estimate_seconds
    from iolab.plan.planfile import load_plan

    try:
        plan = load_plan(file)
    except UserError as exc:
        print(f"iolab: {exc}", file=sys.stderr)
        raise typer.Exit(code=exc.exit_code) from None
    typer.echo(_plan_line(plan))
    typer.echo(f"targets: {', '.join(plan.targets) if plan.targets else '(from the command line)'}")
    for workload in plan.workloads:
        typer.echo(_workload_line(workload))
    for line in plan_writes(plan) or ["nothing but a scratch file in each directory target (removed afterwards)"]:
        typer.echo(f"writes: {line}")
    for line in plan_commands(plan):
        typer.echo(f"runs: {line} (only with --allow-commands)")
    for line in plan_settings(plan):
        typer.echo(f"changes: {line} (only with --allow-host-changes; put back afterwards)")
    typer.echo(f"estimated duration: {duration(estimate_seconds(plan))}")


def _plan_line(plan: Plan) -> str:
    """`plan NAME: N workloads, repeat ...`: how many times each point runs, and how."""
    repeats = plan.repeats
    assert repeats is not None
    mode = f"{repeats.count}" + (
        f" (adaptive to CoV {repeats.cov_target:.0%}, max {repeats.max_count})" if repeats.adaptive else ""
    )
    return f"plan {plan.name}: {len(plan.workloads)} workloads, repeat {mode}" + (
        ", interleaved" if repeats.interleave else ""
    )


def _workload_line(workload: Workload) -> str:
    """One workload as `plan check` lists it: name, target, options and host settings."""
    options = " ".join(f"{k}={v}" if v != "" else k for k, v in {**workload.options, **workload.host_settings}.items())
    where = f" @ {workload.target}" if workload.target else ""
    return f"  {workload.name}{where}: {options}"
