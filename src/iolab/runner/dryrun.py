"""`--dry-run`: what a run would do, how long it should take, and what it would write where."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from iolab.models import Point, units
from iolab.runner.executors import ClusterExecutor, Executor, LocalExecutor
from iolab.runner.manifest import Manifest, build_manifest
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
    chosen_max: int = 0  # points chosen while running, at most (adaptive searches and repeats, curves, rounds)
    array: list[str] = field(default_factory=list)  # an array run: its devices and sets (`describe_sets`)
    changes: list[str] = field(default_factory=list)  # host settings written before points (--allow-host-changes)
    manifest: Manifest = field(default_factory=Manifest)  # every job text and every path fio may touch

    @property
    def summary(self) -> str:
        """The preview's last line: how many points, and the budget of those chosen while running (an adaptive
        plan has few fixed points or none, and "0 points" would hide the run it is)."""
        if not self.chosen_max:
            return f"{units.counted(len(self.points), 'point')}, estimated {units.duration(self.seconds)}"
        return (
            f"{units.counted(len(self.points), 'fixed point')} and up to {self.chosen_max:,} chosen while running, "
            f"estimated {units.duration(self.seconds)}"
        )


def dry_run(request: RunRequest) -> DryRun:
    """Expand and check a request exactly as a run would, without running fio."""
    from iolab.fio.options import writes as options_write
    from iolab.fio.run import files_dir, metadata_dir
    from iolab.plan.effects import check_commands, plan_commands
    from iolab.plan.estimate import FIO_STARTUP_SECONDS, chosen_while_running, estimate_seconds, point_seconds
    from iolab.runner.arrays import describe_sets
    from iolab.runner.execute import check_hosts, prepare_points, run_targets
    from iolab.runner.host_settings import HostSettings, check_request
    from iolab.runner.request import build_plan

    plan = build_plan(request)
    check_commands(plan, request.allow_commands)  # refused here as the run would refuse it, before any listing
    check_request(plan, replace(request, allow_host_changes=True))  # a dry run changes nothing: listed, not refused
    executor: Executor = LocalExecutor()
    check_hosts(request, plan)
    if request.hosts:  # the hosts are not contacted: a dry run only plans
        from iolab.cluster.cluster import Cluster
        from iolab.cluster.hosts import HostSpec
        from iolab.cluster.servers import HostState

        executor = ClusterExecutor(Cluster([HostState(HostSpec.from_dict(h), reachable=True) for h in request.hosts]))
    plan, targets, points, notes = prepare_points(request, plan, executor)
    array = describe_sets(targets[None], points) if request.devices else []
    seconds = RUN_OVERHEAD_S + sum(point_seconds(p.options) for p in points)
    writes: list[str] = []
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
    open_ended, chosen_max = [], 0
    parts = chosen_while_running(plan)
    if parts:
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
        chosen_max += sum(parts.values()) * len(targets[None])
        each = "; ".join(f"{name}: up to {count}" for name, count in parts.items())
        open_ended.append(f"points chosen while running on each target ({each}): the estimate counts them at their cap")
    policy = plan.repeats
    assert policy is not None  # Plan.__post_init__ always sets it
    if policy.adaptive:
        firsts = sum(1 for p in points if p.repeat == 0)
        chosen_max += firsts * max(0, policy.max_count - policy.count)
        open_ended.append(
            f"adaptive repeats: each point runs {policy.count} to {policy.max_count} times, until the COV of its "
            f"runs is under {policy.cov_target:.0%}; the estimate counts {policy.count}"
        )
    commands = plan_commands(plan)
    changes = HostSettings(None).check(points)  # checked against this kernel, nothing written
    if changes and not request.allow_host_changes:
        changes = [f"{line} (a run needs --allow-host-changes)" for line in changes]
    return DryRun(
        points=points,
        seconds=seconds,
        writes=writes,
        notes=notes,
        open_ended=open_ended,
        commands=commands,
        chosen_max=chosen_max,
        array=array,
        changes=changes,
        manifest=build_manifest(points),
    )
