"""`--dry-run`: what a run would do, how long it should take, and what it would write where."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from iolab import pathchain
from iolab.errors import UserError
from iolab.models import Plan, Point, Target, units
from iolab.runner import blank
from iolab.runner.executors import ClusterExecutor, Executor, LocalExecutor, check_hosts
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
    checks: list[str] = field(default_factory=list)  # each directory written in: the checks it passed, or why not
    refused: str = ""  # the first refusal among `checks`: the run would stop there (exit 2)

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
    from iolab.plan.effects import check_commands, plan_commands
    from iolab.plan.estimate import point_seconds
    from iolab.runner.arrays import describe_sets
    from iolab.runner.host_settings import check_request
    from iolab.runner.planning import prepare_points, run_targets
    from iolab.runner.request import build_plan

    plan = build_plan(request)
    check_commands(plan, request.allow_commands)  # refused here as the run would refuse it, before any listing
    check_request(plan, replace(request, allow_host_changes=True))  # a dry run changes nothing: listed, not refused
    check_hosts(request, plan)
    executor = _planning_executor(request)
    with blank.verifying("sample"):  # a dry run reads no whole device: the run itself does, before writing
        plan, targets, points, notes = prepare_points(request, plan, executor)
        notes += [
            f"{line}{'; the run reads all of it before its first write' if request.verify_blank == 'full' else ''}"
            for line in blank.acceptance_lines()
        ]
    writes, fill_seconds = _target_writes(plan, targets, points, executor)
    open_ended, chosen_max, open_seconds = _chosen_while_running(plan, points, len(targets[None]))
    checks, refused = path_checks(run_targets(targets, points))
    return DryRun(
        points=points,
        seconds=RUN_OVERHEAD_S + sum(point_seconds(p.options) for p in points) + fill_seconds + open_seconds,
        writes=writes,
        notes=notes,
        open_ended=open_ended,
        commands=plan_commands(plan),
        chosen_max=chosen_max,
        array=describe_sets(targets[None], points) if request.devices else [],
        changes=_host_changes(points, request),
        manifest=build_manifest(points),
        checks=checks,
        refused=refused,
    )


def path_checks(targets: list[Target]) -> tuple[list[str], str]:
    """Per directory the run writes in (each target's, fio's work directories' $TMPDIR, IOLAB_HOME), what
    `pathchain` found: the checks passed, or why the run would refuse it; and the first such refusal."""
    from iolab.store.db import home_dir

    places = [(f"{t.path} (its {'device' if t.kind == 'block' else 'directory'})", t.filename) for t in targets]
    places = [(what, os.path.dirname(path)) for what, path in places if _written(targets, path)]
    places += [("fio's work directories ($TMPDIR)", tempfile.gettempdir()), ("IOLAB_HOME", "")]
    lines, refused = [], ""
    for what, directory in places:
        try:
            chain = pathchain.check(directory) if directory else _home_chain(home_dir())
        except (UserError, OSError) as exc:
            reason = str(exc).replace("\n", " ") if isinstance(exc, UserError) else f"{exc.filename}: {exc.strerror}"
            lines.append(f"{what}: refused: {reason}")
            refused = refused or reason
            continue
        lines.append(f"{what}: {chain.resolved}: {chain.passed()}")
    return lines, refused


def _written(targets: list[Target], filename: str) -> bool:
    return any(t.filename == filename and t.writable and t.kind != "group" and not t.hosts for t in targets)


def _home_chain(home: Path) -> pathchain.Chain:
    """The home's chain: of the home when it exists, else of the directory it would be made in."""
    path = pathchain.resolve(str(home))[0]
    while not os.path.isdir(path):
        path = os.path.dirname(path)
    return pathchain.check(path)


def _planning_executor(request: RunRequest) -> Executor:
    """The executor the run would use, for planning only: a multi-host run's hosts are not contacted."""
    if not request.hosts:
        return LocalExecutor()
    from iolab.cluster.cluster import Cluster
    from iolab.cluster.hosts import HostSpec
    from iolab.cluster.servers import HostState

    return ClusterExecutor(Cluster([HostState(HostSpec.from_dict(h), reachable=True) for h in request.hosts]))


def _target_writes(
    plan: Plan, targets: dict[str | None, list[Target]], points: list[Point], executor: Executor
) -> tuple[list[str], float]:
    """What the run would write on each target (directories, scratch files, data destroyed), and the seconds
    laying out its scratch files takes."""
    from iolab.plan.estimate import FIO_STARTUP_SECONDS
    from iolab.runner.planning import data_targets, run_targets

    writes: list[str] = []
    seconds = 0.0
    data = set(data_targets(plan, targets, points))
    for target in run_targets(targets, points):  # as the run counts them: open-ended parts too
        own = [p for p in points if p.target == target]
        writes += _directories(target, own, plan.metadata is not None)
        if target.scratch and target in data:
            seconds += target.size_bytes / ASSUMED_FILL_BPS + FIO_STARTUP_SECONDS
            writes.append(_scratch_line(target, executor))
        writes += _destroyed(target, own)
    return writes, seconds


def _scratch_line(target: Target, executor: Executor) -> str:
    """The scratch file (or a job's new file) the run lays out on a target, with its size."""
    what = "scratch file" if target.kind == "directory" or target.hosts else "new file for the job"
    return f"{what} {executor.scratch_name(target)} ({units.size(target.size_bytes)}, removed afterwards)"


def _destroyed(target: Target, points: list[Point]) -> list[str]:
    """A line naming the workloads that write a target that is not iolab's scratch (its data is destroyed)."""
    writers = sorted({p.name for p in points if p.job.writes})
    if writers and not target.scratch:
        return [f"{target.path}: written by {', '.join(writers)} (its data is destroyed)"]
    return []


def _directories(target: Target, points: list[Point], metadata: bool) -> list[str]:
    """The directories iolab makes in a target for its points: file operations' (for the plan's metadata
    scaling too), and one for each job's own file."""
    from iolab.fio.run import files_dir, metadata_dir

    lines = []
    if target.kind == "directory" and (metadata or any(p.job.is_metadata for p in points)):
        lines.append(f"directory {metadata_dir(target)} for file create, stat and remove (removed afterwards)")
    per_job = [p for p in points if p.per_job_files]
    if per_job:
        largest = max(p.per_job_bytes * p.job.numjobs for p in per_job)
        lines.append(
            f"directory {files_dir(target)} for each job's own file (up to {units.size(largest)} at a time, "
            "laid out by fio, removed afterwards)"
        )
    return lines


def _chosen_while_running(plan: Plan, points: list[Point], target_count: int) -> tuple[list[str], int, float]:
    """(what is chosen while running, how many points at most, their seconds at that cap): open-ended plan
    parts (QD searches, latency curves, steady-state rounds, metadata scaling) and adaptive repeats."""
    from iolab.plan.estimate import chosen_while_running, estimate_seconds

    open_ended, chosen_max, seconds = [], 0, 0.0
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
        seconds += estimate_seconds(fixed_only) * target_count
        chosen_max += sum(parts.values()) * target_count
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
    return open_ended, chosen_max, seconds


def _host_changes(points: list[Point], request: RunRequest) -> list[str]:
    """The host settings the run would write, checked against this kernel (nothing written)."""
    from iolab.runner.host_settings import HostSettings

    changes = HostSettings(None).check(points)
    if changes and not request.allow_host_changes:
        changes = [f"{line} (a run needs --allow-host-changes)" for line in changes]
    return changes
