"""`--dry-run`: what a run would do, how long it should take, and what it would write where."""

from __future__ import annotations

from dataclasses import dataclass, field

from iolab.models import Point, units
from iolab.runner.executors import ClusterExecutor, Executor, LocalExecutor
from iolab.runner.request import RunRequest

# Sequential write rate assumed for writing a scratch file before it is read;
# a conservative SSD figure (the estimate says so).
ASSUMED_FILL_BPS = 1e9
# Per run: host snapshots before and after (~0.15 s each), the findings, and
# the HTML report (~1.4 s, mostly importing matplotlib), measured here.
RUN_OVERHEAD_S = 2.0


@dataclass
class DryRun:
    points: list[Point]
    seconds: float
    writes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    open_ended: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)  # programs the plan runs (need --allow-commands)


def dry_run(request: RunRequest) -> DryRun:
    """Expand and check a request exactly as a run would, without running fio."""
    from iolab.fio.options import writes as options_write
    from iolab.fio.run import files_dir, metadata_dir
    from iolab.plan.effects import check_commands, plan_commands
    from iolab.plan.estimate import FIO_STARTUP_SECONDS, estimate_seconds, point_seconds
    from iolab.runner.execute import array_plan, check_metadata_targets, plan_points, resolve_targets, run_targets
    from iolab.runner.request import build_plan

    plan = build_plan(request)
    check_commands(plan, request.allow_commands)  # refused here as the run would refuse it, before any listing
    executor: Executor = LocalExecutor()
    if request.hosts:  # the hosts are not contacted: a dry run only plans
        from iolab.cluster.cluster import Cluster
        from iolab.cluster.hosts import HostSpec
        from iolab.cluster.servers import HostState

        executor = ClusterExecutor(Cluster([HostState(HostSpec.from_dict(h), reachable=True) for h in request.hosts]))
    if request.devices:
        plan, targets, points, notes = array_plan(request, plan)
    else:
        targets = resolve_targets(request, plan, executor)
        points, notes = plan_points(plan, targets)
    seconds = RUN_OVERHEAD_S + sum(point_seconds(p.options) for p in points)
    writes: list[str] = []
    if plan.metadata is not None:
        check_metadata_targets(targets[None])
    data = {p.target for p in points if not p.job.is_metadata and not p.per_job_files}
    data |= set(targets[None]) if plan.qd_searches or plan.latency_curve or plan.steady_rounds else set()
    for target in run_targets(targets, points):  # as the run counts them: open-ended parts too
        if target.kind == "directory" and (
            plan.metadata is not None or any(p.target == target for p in points if p.job.is_metadata)
        ):
            writes.append(f"directory {metadata_dir(target)} for file create, stat and remove (removed afterwards)")
        per_job = [p for p in points if p.target == target and p.per_job_files]
        if per_job:
            largest = max(p.per_job_bytes * p.job.numjobs for p in per_job)
            writes.append(
                f"directory {files_dir(target)} for each job's own file (up to {units.size(largest)} at a time, "
                "laid out by fio, removed afterwards)"
            )
        if target.scratch and target in data:
            seconds += target.size_bytes / ASSUMED_FILL_BPS + FIO_STARTUP_SECONDS
            what = "scratch file" if target.kind == "directory" or target.hosts else "new file for the job"
            writes.append(
                f"{what} {executor.scratch_name(target)} ({units.size(target.size_bytes)}, removed afterwards)"
            )
        writers = sorted({p.name for p in points if p.target == target and options_write(p.options)})
        if writers and not target.scratch:
            writes.append(f"{target.path}: written by {', '.join(writers)} (its data is destroyed)")
    open_ended = []
    if plan.open_ended:
        fixed_only = type(plan)(
            name=plan.name,
            workloads=[],
            repeats=plan.repeats,
            qd_searches=plan.qd_searches,
            latency_curve=plan.latency_curve,
            steady_rounds=plan.steady_rounds,
            metadata=plan.metadata,
        )
        seconds += estimate_seconds(fixed_only) * len(targets[None])
        if plan.qd_searches or plan.latency_curve or plan.steady_rounds:
            open_ended.append(
                "points chosen while running (adaptive search, latency curve or steady-state rounds): "
                "the estimate counts them at their cap"
            )
        if plan.metadata is not None:
            open_ended.append(
                "file create, stat and remove per thread count, file counts sized while running so each phase "
                "lasts about its runtime: the estimate counts each phase at its runtime"
            )
    commands = plan_commands(plan)
    return DryRun(points=points, seconds=seconds, writes=writes, notes=notes, open_ended=open_ended, commands=commands)
