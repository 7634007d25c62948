"""What a plan would do beyond measuring: the programs it runs, listed before anything runs.

A plan can run programs three ways: fio's `exec_prerun`/`exec_postrun`, an
I/O engine iolab cannot vouch for (fio loads unknown engines from shared
libraries), and the plan's own commands: pre- and post-point, and its
`metrics` (read every second while each point runs, their numbers kept as columns). None of them
runs unless the user says `--allow-commands`; `plan check`, `lint`,
`--dry-run` and `schedule install` list them so the user can decide.
Host settings (a plan's `[host]` table) are written to sysfs only with
`--allow-host-changes`; `plan check` and `--dry-run` list them.
"""

from __future__ import annotations

import shlex

from iolab.errors import UserError
from iolab.fio.jobfile import JobSection
from iolab.fio.options import PATH_OPTIONS, TARGET_OPTIONS, effects, split_paths
from iolab.models.host_settings import host_setting, names
from iolab.models.job_options import JobOptions
from iolab.models.option_values import canonical
from iolab.models.plan import Plan, Workload


def plan_workloads(plan: Plan) -> list[Workload]:
    """Every workload a plan can run, fixed or chosen while running, precondition included."""
    workloads = list(plan.workloads)
    workloads += [search.base for search in plan.qd_searches]
    if plan.latency_curve is not None:
        workloads.append(plan.latency_curve.probe)
    if plan.steady_rounds is not None:
        workloads += list(plan.steady_rounds.round)
    if plan.phases.precondition is not None:
        workloads.append(plan.phases.precondition.workload)
    return workloads


def plan_commands(plan: Plan) -> list[str]:
    """Each program the plan would run, once, as "<where>: <what>"."""
    found: dict[str, None] = {}
    for workload in plan_workloads(plan):
        for command in effects(workload.options).commands:
            found[f"{workload.name}: {command}"] = None
    for when, commands in (("before each point", plan.phases.pre_point), ("after each point", plan.phases.post_point)):
        for argv in commands:
            found[f"{when}: {shlex.join(argv)}"] = None
    for name, argv in plan.phases.metrics:
        found[f"metric {name}, every second during each point: {shlex.join(argv)}"] = None
    return list(found)


def check_commands(plan: Plan, allowed: bool) -> None:
    """UserError listing the plan's programs unless the user allowed them (`--allow-commands`)."""
    commands = plan_commands(plan)
    if commands and not allowed:
        raise UserError(
            f"plan {plan.name} runs programs or changes the system: {'; '.join(commands)}. Run it with --allow-commands "
            "if you trust them (`iolab plan check` lists them)"
        )


def plan_settings(plan: Plan) -> list[str]:
    """Each host setting the plan changes with its values, as "scheduler = none, mq-deadline (where)"."""
    values: dict[str, dict[str, None]] = {}
    for workload in plan.workloads:
        for name, value in workload.host_settings.items():
            values.setdefault(name, {})[value] = None
    return [f"{name} = {', '.join(values[name])} ({_where(name)})" for name in names() if name in values]


def _where(name: str) -> str:
    return "every CPU's frequency policy" if host_setting(name).per_cpu_policy else "the block device under each target"


def check_settings(plan: Plan, allowed: bool) -> None:
    """UserError listing the host settings the plan changes unless the user allowed it (`--allow-host-changes`)."""
    settings = plan_settings(plan)
    if settings and not allowed:
        raise UserError(
            f"plan {plan.name} changes host settings: {'; '.join(settings)}. Run it with --allow-host-changes "
            "(as root) to let iolab write them; it puts the original values back afterwards"
        )


def job_effects(sections: list[JobSection]) -> tuple[list[str], list[str]]:
    """(what each job writes, which programs it runs) for a job file as fio itself would run it.

    For `iolab lint`, which reads job files people run with fio directly: it
    reports, it does not refuse (running the file through iolab refuses).
    """
    writes: list[str] = []
    commands: list[str] = []
    for section in sections:
        options = {canonical(k): v for k, v in section.options.items()}
        writes += _section_writes(section.name, JobOptions(options))
        commands += [f"[{section.name}] {command}" for command in effects(options).commands]
    return writes, commands


def _section_writes(name: str, job: JobOptions) -> list[str]:
    """What one job section writes: its targets when it writes data, and every path option's file."""
    writes = []
    reasons = job.write_reasons
    if reasons:
        paths = [p for option in TARGET_OPTIONS for p in split_paths(job.given(option) or "") if p]
        where = ", ".join(paths) or "its own files in the current directory"
        writes.append(f"[{name}] writes {where} ({', '.join(reasons)})")
    for option, why in PATH_OPTIONS.items():
        if (value := job.given(option) or "").strip():
            writes.append(f"[{name}] {option}={value}: {why}")
    return writes


def plan_writes(plan: Plan) -> list[str]:
    """What the plan's writing workloads would write, before targets are known (`plan check`)."""
    lines = []
    for workload in plan_workloads(plan):
        reasons = workload.job.write_reasons
        if reasons:
            where = workload.target or ", ".join(plan.targets) or "the targets given on the command line"
            lines.append(
                f"{workload.name} writes {where} ({', '.join(reasons)}): a scratch file in a directory; "
                "a blank device only with --allow-write"
            )
    return lines
