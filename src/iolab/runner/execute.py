"""A run, start to finish: resolve targets, plan points, run each, store each at once.

Everything a run needs is imported with this module, not at a point's turn: on a busy host a
Ctrl-C or SIGTERM between points was seen landing inside the first import of the doctor's modules,
and some of those runs ended killed by SIGINT instead of exiting 3 (tests/runner/test_interrupt.py).

Order matters for the promise "nothing lost": targets and fio are checked
before the run exists; every fixed point is recorded as pending before the
first one runs; each finished point is committed immediately; a Ctrl-C or
a failing point never discards what finished before it. A run killed
outright is resumed by `--resume RUN`, or by running the same plan again:
points are identified by content hash, and finished ones are skipped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from iolab.doctor.derived import interference
from iolab.doctor.engine import diagnose_run
from iolab.errors import RunFailed, UserError
from iolab.fio.options import unknown_options_allowed
from iolab.fio.run import check_point, files_dir, fio_clocksource, fio_version, metadata_dir
from iolab.models import (
    Finding,
    Plan,
    Point,
    PointRecord,
    Precondition,
    Result,
    Snapshot,
    Target,
    Workload,
    primary_metric,
    units,
)
from iolab.models.material import DOCTOR_METRICS, SteadyOutcome
from iolab.models.point import SCRATCH_PREFIX
from iolab.plan.adaptive import next_configs, workload_at_qd
from iolab.plan.effects import check_commands, plan_workloads
from iolab.plan.estimate import chosen_while_running, estimate_seconds
from iolab.plan.limits import MAX_POINTS
from iolab.plan.presets import latency_curve_workloads
from iolab.plan.repeats import run_order
from iolab.plan.steady import steady_state
from iolab.probe import Root, take_snapshot
from iolab.runner import blank, scratch
from iolab.runner.arrays import array_points, resolve_members
from iolab.runner.executors import MULTIHOST_TARGET, ClusterExecutor, Executor, LocalExecutor
from iolab.runner.host_settings import HostSettings, check_request, restore_leftovers
from iolab.runner.locks import TargetLocks
from iolab.runner.measure import Measurer
from iolab.runner.metadata import check_room, measure_scaling
from iolab.runner.phases import discard, fill_scratch, run_unmeasured
from iolab.runner.progress import Progress
from iolab.runner.repeat_gate import needs_more_runs
from iolab.runner.request import RunRequest, build_plan, plan_identity
from iolab.runner.safety import check_write, devices_to_hold, write_refusal
from iolab.runner.stopping import StopRule
from iolab.runner.targets import identity_change, scratch_bytes
from iolab.runner.workdirs import Workdirs
from iolab.store.db import Artifact, Store, home_dir
from iolab.store.queries import (
    get_run,
    open_scratch,
    point_series,
    point_statuses,
    resumable_run,
    run_material,
    run_points,
)

DEVICES_AND_HOSTS = "--devices and --hosts do not go together: name a device per host in a host file instead"
# fio 3.33's client/server mode shows nothing of a point until it ends: the client's --status-interval
# is not sent to the servers, and a server started with one sends its interim figures into the final
# report, where fio adds them into "All clients" (tests/cluster/test_stopping_hosts.py; README).
STOPPING_AND_HOSTS = (
    "stopping when known (--stop-when-known, a plan's [stopping]) runs on one host only: fio's client/server "
    "mode gives no per-second figures while a point runs. Drop it, or run without --hosts"
)


@dataclass
class RunOutcome:
    run_id: int
    status: str
    notes: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: int = 0
    findings: list[Finding] = field(default_factory=list)
    failed_hosts: list[str] = field(default_factory=list)  # "name: why" of hosts lost during the run
    resumed: bool = False  # an unfinished run reopened: the CLI says so even with --quiet
    # what the run left behind or a fio server reported (scratch files kept, assertion lines): among the
    # notes, and said even with --quiet, since a scheduled run's user reads nothing else
    warnings: list[str] = field(default_factory=list)


def resolve_targets(request: RunRequest, plan: Plan, executor: Executor) -> dict[str | None, list[Target]]:
    """Targets by the path workloads name (None: the default targets), as the executor sees them.

    A directory's scratch file is sized for the workloads that run on it (`scratch_bytes`): the default
    targets carry every workload without a target of its own, open-ended parts and precondition too.
    """
    on_default = [w for w in plan_workloads(plan) if w.target is None]
    # a job file whose jobs all name their filename= uses no default target: the current directory is
    # neither checked nor listed as the run's target (`ls` showed ".")
    unused = not on_default and not plan.open_ended and not request.targets and not plan.targets
    default_paths = [] if unused else executor.default_paths(request.targets or plan.targets)
    users: dict[str, list[Workload]] = {path: list(on_default) for path in default_paths}
    for workload in plan.workloads:
        if workload.target is not None:
            users.setdefault(workload.target, []).append(workload)
    cache = {  # a path only a workload names may be a new file for it (`runner.targets.resolve_target`)
        # a directory no workload reads or writes (only file create/stat/remove, which work in a directory
        # of their own) gets no scratch file, so no size of one is asked of its file system
        path: executor.target(
            path,
            request.allow_write,
            request.size,
            scratch_bytes(request.size, workloads) if any(not w.job.is_metadata for w in workloads) else 0,
            path not in default_paths,
        )
        for path, workloads in users.items()
    }
    resolved: dict[str | None, list[Target]] = {None: [cache[p] for p in default_paths]}
    for workload in plan.workloads:
        if workload.target is not None:
            resolved[workload.target] = [cache[workload.target]]
    return resolved


def prepare_points(
    request: RunRequest, plan: Plan, executor: Executor
) -> tuple[Plan, dict[str | None, list[Target]], list[Point], list[str]]:
    """The one preparation of a run and of its dry run: targets resolved and checked, points planned.

    Returns the plan (an array's is rewritten into its sets), the targets by the path workloads name, the
    points and the notes on what was skipped; UserError for anything a run would refuse.
    """
    if request.devices:
        plan, targets, points, notes = array_plan(request, plan)
    else:
        targets = resolve_targets(request, plan, executor)
        points, notes = plan_points(plan, targets)
    if plan.metadata is not None:
        check_metadata_targets(targets[None])
        if executor.local:  # another host's file system is not this one's to read
            check_room(plan.metadata, targets[None])
    return plan, targets, points, notes


def check_metadata_targets(targets: list[Target]) -> None:
    """File create/stat/remove scaling needs directories: UserError naming the first target that is not one."""
    for target in targets:
        if target.kind != "directory":
            raise UserError(
                f"{target.path}: the metadata preset creates, stats and removes files in a directory; "
                "give a directory on the file system to measure"
            )


def run_targets(targets: dict[str | None, list[Target]], points: list[Point]) -> list[Target]:
    """Every target a run makes ready (locks, scratch files): the resolved ones, which open-ended parts
    use too, and those of its points (an array's members and sets), by path."""
    return sorted({t for ts in targets.values() for t in ts} | {p.target for p in points}, key=lambda t: t.path)


def array_plan(request: RunRequest, plan: Plan) -> tuple[Plan, dict[str | None, list[Target]], list[Point], list[str]]:
    """A `--devices` run: each drive checked as a target, the workloads run together, alone and in sets.

    Returns the plan without its open-ended parts (an array run measures fixed workloads; a note says what
    was left out), the members, the points and notes.
    """
    members = resolve_members(request.devices, request.allow_write, request.size)
    assert plan.repeats is not None
    dropped = [*chosen_while_running(plan), *(["adaptive repeats"] if plan.repeats.adaptive else [])]
    if dropped and not plan.workloads:
        raise UserError(
            f"--devices measures fixed workloads, and {plan.name} chooses its points while running "
            f"({', '.join(dropped)}): run it on one device at a time"
        )
    base = array_points(plan, members, tuple(request.array_modes), request.subsets)
    if len(base) * plan.repeats.count > MAX_POINTS:
        raise UserError(
            f"{len(base)} array points x {plan.repeats.count} repeats: a run may have at most {MAX_POINTS}; "
            "ask for fewer --subsets or --array-modes"
        )
    planned = [replace(p, repeat=r) for p, r in run_order(base, plan.repeats.count, plan.repeats.interleave)]
    points = [p for p in planned if not _skipped(p)]
    for point in points:
        check_point(point)
        check_write(point.name, point.target, point.options)
    notes = ["skipped the writing workloads (writes need --allow-write)"] if len(points) < len(planned) else []
    if dropped:
        notes.append(f"left out with --devices: {', '.join(dropped)} (an array run measures fixed workloads)")
    fixed = replace(
        plan,
        qd_searches=[],
        latency_curve=None,
        steady_rounds=None,
        metadata=None,
        repeats=replace(plan.repeats, adaptive=False),
    )
    return fixed, {None: members}, points, notes


def _skipped(point: Point) -> bool:
    """A point the write guard refuses only because it writes a read-only target: a plan runs its reads
    and skips it with a note (any other refusal stops the run: `check_write`)."""
    refusal = write_refusal(point.target, point.options)
    return refusal is not None and refusal.read_only


def plan_points(plan: Plan, targets: dict[str | None, list[Target]]) -> tuple[list[Point], list[str]]:
    """The fixed points (workloads x targets x repeats in run order), less what cannot run, with notes."""
    base: list[Point] = []
    skipped: dict[str, list[str]] = {}
    for workload in plan.workloads:
        for target in targets[workload.target]:
            point = Point(workload.name, target, dict(workload.options), host_settings=dict(workload.host_settings))
            if _skipped(point):
                skipped.setdefault(target.path, []).append(workload.name)
            elif point.job.is_metadata and target.kind != "directory":
                skipped.setdefault(target.path, []).append(f"{workload.name} (needs a directory)")
            else:
                check_point(point)  # refused now, before a run exists, rather than at its turn
                check_write(point.name, target, point.options)
                base.append(point)
    assert plan.repeats is not None
    if skipped and not base and not plan.open_ended:
        path, names = next(iter(skipped.items()))
        raise UserError(
            f"nothing to run: {path} cannot take {', '.join(names)}"
            + (
                " (writes need --allow-write, and never go to a file or device holding data)"
                if not any("needs a directory" in n for n in names)
                else ""
            )
        )
    if len(base) * plan.repeats.count > MAX_POINTS:
        raise UserError(
            f"{len(base)} points x {plan.repeats.count} repeats: a run may have at most {MAX_POINTS}; "
            "split the plan or use fewer targets"
        )
    points = [replace(p, repeat=r) for p, r in run_order(base, plan.repeats.count, plan.repeats.interleave)]
    notes = [f"{path}: skipped {', '.join(names)} (writes need --allow-write)" for path, names in skipped.items()]
    for target in {t for ts in targets.values() for t in ts}:
        if not target.direct:
            ram = " and the result is RAM-backed" if target.ram_backed else ""
            notes.append(
                f"{target.path}: {target.fs_type or 'this file system'} has no O_DIRECT; using buffered I/O{ram}"
            )
        elif target.ram_backed:
            where = (
                f"on {target.fs_type}"
                if target.fs_type
                else "a device that keeps its data in RAM (zram, brd, or a loop file on tmpfs)"
            )
            notes.append(f"{target.path}: {where}, the result is RAM-backed")
    return points, notes


# The share of a run's points that may be measured again because something else was busy (at least one).
REMEASURE_SHARE = 0.1


@dataclass
class Session:
    """One run in progress: measures points, reusing finished ones when resuming."""

    store: Store
    run_id: int
    measurer: Measurer
    progress: Progress
    done: dict[str, PointRecord]
    planned: dict[str, int]
    total: int
    failed: list[str] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)  # multi-host points some host did not finish
    measured: int = 0
    prepared: set[Target] = field(default_factory=set)
    filled: set[Target] = field(default_factory=set)  # scratch files written in full before a point reads them
    metadata_dirs: set[Target] = field(default_factory=set)
    per_job_layouts: dict[Target, tuple[int, int]] = field(default_factory=dict)  # (jobs, bytes each) now there
    results: dict[str, Result | None] = field(default_factory=dict)
    plan: Plan | None = None
    reruns: list[str] = field(default_factory=list)  # points measured again because something else was busy
    settings: HostSettings | None = None  # the plan's [host] settings, set before each point
    still_busy: list[str] = field(default_factory=list)  # disturbed points kept as measured: no budget left

    @property
    def remeasure_budget(self) -> int:
        """How many points a run may measure again (`REMEASURE_SHARE` of its points, at least one): a busy
        host makes every point look disturbed, and measuring each twice doubles the run for nothing."""
        return max(1, int(self.total * REMEASURE_SHARE))

    def _may_remeasure(self) -> bool:
        """Budget left, and the host not found busy again right after a re-measure: a neighbour that is
        still there when a point is measured again will be there for the next one too."""
        return len(self.reruns) < self.remeasure_budget and not self.still_busy

    def _disturbed(self, point: Point) -> bool:
        """Whether other processes or other I/O were busy during the point just stored."""
        point_id = self.planned[point.key]
        record = next((r for r in run_points(self.store, self.run_id) if r.id == point_id), None)
        if record is None:
            return False
        return any(
            seen.disturbed
            for seen in interference([record], {point_id: point_series(self.store, point_id, DOCTOR_METRICS)})
        )

    def run(self, point: Point, again: bool = False) -> Result | None:
        """The point's result: from this run's store when it finished before, else measured now.

        `again` measures it even when it finished before (a metadata create, whose files are gone).
        """
        if again and point.key in self.done:
            self.store.reset_point(self.planned[point.key])
            del self.done[point.key]
        finished = self.done.get(point.key)
        if finished is not None:
            return finished.result
        if point.key in self.results and not again:  # an adaptive search can ask for a depth it already ran
            return self.results[point.key]
        if point.key not in self.planned:
            (self.planned[point.key],) = self.store.plan_points(self.run_id, [point])
            self.total += 1
        elif point.key in self.results:
            self.store.reset_point(self.planned[point.key])
        changed = identity_change(point.target)
        if changed:  # before anything is written: the next point's I/O would go elsewhere
            raise RunFailed(f"{point.name}: {changed}; stopped before this point, nothing written to it")
        self.measurer.held.watch.check(f"before {point.name}")
        self._ready_target(point.target, point)
        self._written_where_made(point, "writing its scratch file")
        applied = self.settings.apply(point) if self.settings is not None else []
        kept = [Artifact("host-settings", "\n".join(applied).encode())] if applied else []
        self.measured += 1
        index = len(self.done) + self.measured
        self.progress.point_started(index, self.total, point)
        result, error, lost = self.measurer.measure(point, self.planned[point.key], kept)
        if result is not None and self.plan is not None and self.plan.rerun_disturbed and self._disturbed(point):
            result, error, lost = self._remeasure(point, kept, (result, error, lost))
        self.results[point.key] = result
        self._written_where_made(point, "it ran")
        self.progress.point_finished(index, self.total, point, result, error)
        if error:
            self.failed.append(f"{point.name} on {point.target.path}: {error}")
        if lost and not error:
            self.partial.append(f"{point.name}: without {', '.join(lost)}")
        if lost and self.measurer.executor.stops_on_host_loss:
            raise RunFailed(f"{point.name}: host {lost[0]}; stopped there as --on-host-failure stop asks")
        return result

    def _remeasure(
        self, point: Point, kept: list[Artifact], measured: tuple[Result | None, str, list[str]]
    ) -> tuple[Result | None, str, list[str]]:
        """Measure a disturbed point once more while the run's budget lasts; else keep it as measured (its
        findings name what was busy)."""
        if not self._may_remeasure():
            self.still_busy.append(point.name)
            return measured
        self.store.reset_point(self.planned[point.key])
        self.reruns.append(point.name)
        self.progress.phase(
            f"something else was busy during {point.name}: measuring it again "
            f"({len(self.reruns)} of at most {self.remeasure_budget} this run)"
        )
        again = self.measurer.measure(point, self.planned[point.key], kept)
        if again[0] is not None and self._disturbed(point):
            self.still_busy.append(point.name)  # busy again: the host is, not the moment; no more re-measures
        return again

    def _written_where_made(self, point: Point, when: str) -> None:
        """Stop the run (exit 3) when a file fio wrote by name is not the one iolab made (`written_elsewhere`)."""
        problem = scratch.written_elsewhere(self.store, self.run_id, [point.target])
        if problem:
            raise RunFailed(f"{point.name}: after {when}: {problem}; fio may have written elsewhere, the run stopped")

    def _ready_target(self, target: Target, point: Point) -> None:
        """Before the first point on a target: precondition it, write its scratch file.

        Not on other hosts: there fio lays out each host's scratch file itself before its first job.
        """
        assert self.plan is not None
        if target.hosts:
            return
        pre = self.plan.phases.precondition
        if target not in self.prepared:
            self.prepared.add(target)
            if pre is not None and pre.scope == "once" and write_refusal(target) is None:
                self._precondition(target, pre)
        elif (
            pre is not None and pre.scope == "before_each_write" and point.job.writes and write_refusal(target) is None
        ):
            self._precondition(target, pre)
        if point.job.is_metadata:
            self.metadata_directory(target)
        elif point.per_job_files:
            self._per_job_directory(point)
        elif target.scratch and target not in self.filled:
            self.filled.add(target)
            self.progress.phase(f"writing scratch file {target.filename} ({units.size(target.size_bytes)})")
            with self.measurer.log.phase("fill", f"{target.filename} ({units.size(target.size_bytes)})"):
                fill_scratch(target, self.measurer.fio, self.measurer.workdirs)

    def _per_job_directory(self, point: Point) -> None:
        """The directory of each job's own file, made on first use; emptied when the files a point asks for
        differ from those there (another job count, another size), so the target holds one set of files at
        a time, of its size in all, and fio lays out each job's file for the point that reads it."""
        target, directory = point.target, files_dir(point.target)
        layout = (point.job.numjobs, point.per_job_bytes)
        if target not in self.per_job_layouts:
            scratch.create_dir(self.store, self.run_id, directory)
        elif self.per_job_layouts[target] != layout:
            scratch.empty_directory(directory)
        self.per_job_layouts[target] = layout

    def metadata_directory(self, target: Target) -> Path:
        """The run's directory for file create/stat/remove on `target`, recorded and created on first use."""
        directory = metadata_dir(target)
        if target not in self.metadata_dirs:
            scratch.create_dir(self.store, self.run_id, directory)
            self.metadata_dirs.add(target)
        return directory

    def _precondition(self, target: Target, pre: Precondition) -> None:
        log = self.measurer.log
        if pre.discard_first:
            with log.phase("discard", target.path) as problems:
                problem = discard(target, self.measurer.held)
                if problem:
                    self.measurer.note(problem)
                    problems.append(problem)
        self.progress.phase(f"preconditioning {target.path} ({pre.workload.name}, not measured)")
        watch = self.measurer.held.watch
        stop = watch.stopped if watch.names else None
        with log.phase("precondition", f"{target.path} ({pre.workload.name})"):
            try:
                options = dict(pre.workload.options)
                run_unmeasured(target, "precondition", options, self.measurer.fio, self.measurer.workdirs, stop)
            finally:
                watch.check(f"while preconditioning {target.path}")  # the watch's reason, not fio's exit status


def _open_ended(session: Session, plan: Plan, targets: dict[str | None, list[Target]]) -> list[SteadyOutcome]:
    """Adaptive repeats, QD searches, latency curves and steady-state rounds: points chosen by results."""
    steady: list[SteadyOutcome] = []
    policy = plan.repeats
    assert policy is not None
    if policy.adaptive:
        firsts = [p for p in plan_points(plan, targets)[0] if p.repeat == 0]
        for first in firsts:
            values = [primary_metric(session.run(replace(first, repeat=r)), policy.metric) for r in range(policy.count)]
            while needs_more_runs(values, policy):
                values.append(primary_metric(session.run(replace(first, repeat=len(values))), policy.metric))
    for target in targets[None]:
        for search in plan.qd_searches:
            measured: dict[tuple[int, int], float] = {}
            while (configs := next_configs(measured, search)) is not None:
                for qd, jobs in configs:
                    workload = workload_at_qd(search.base, qd, jobs if jobs > 1 else None)
                    point = Point(workload.name, target, dict(workload.options))
                    measured[(qd, jobs)] = primary_metric(session.run(point))
        curve = plan.latency_curve
        if curve is not None:
            probe = session.run(Point(curve.probe.name, target, dict(curve.probe.options)))
            if probe is not None:
                for workload in latency_curve_workloads(curve.probe, primary_metric(probe), curve.fractions):
                    session.run(Point(workload.name, target, dict(workload.options)))
        if plan.metadata is not None:
            directory = session.metadata_directory(target)
            for note in measure_scaling(
                plan.metadata,
                target,
                directory,
                session.measurer.fio,
                session.run,
                session.progress.phase,
                session.measurer.workdirs,
            ):
                session.measurer.note(note)
        rounds = plan.steady_rounds
        if rounds is not None:
            round_values: list[float] = []
            for number in range(1, rounds.max_rounds + 1):
                for workload in rounds.round:  # the round number is the repeat index: each round its own point
                    result = session.run(Point(workload.name, target, dict(workload.options), repeat=number - 1))
                    round_values.append(primary_metric(result, rounds.metric))
                verdict = steady_state(
                    round_values, rounds.window, rounds.range_frac, rounds.slope_frac, rounds.max_rounds
                )
                if verdict.status != "continue":
                    steady.append(SteadyOutcome(target.path, verdict.status == "steady", verdict.reason, round_values))
                    break
    return steady


def _run_findings(
    store: Store, run_id: int, snapshot: Snapshot, steady: list[SteadyOutcome], cov_target: float | None
) -> list[Finding]:
    """The doctor's findings on the finished run (`snapshot`: the Snapshot taken before it)."""
    return diagnose_run(run_material(store, run_id, snapshot, steady, cov_target))


def execute(
    request: RunRequest,
    store: Store,
    progress: Progress,
    resume: int | None = None,
    fresh: bool = False,
    plan: Plan | None = None,
    executor: Executor | None = None,
) -> RunOutcome:
    """Run what the request asks for; RunFailed on interruption, after keeping every finished point.

    `plan` lets a program hand over a Plan it built; otherwise the request names one. `executor` runs
    the points instead of the request's own (this host's fio, or its hosts'): the run loop's unit tests
    give one that answers with fio's saved outputs (tests/runner/fake_executor.py).
    """
    with unknown_options_allowed(request.allow_unknown_options), blank.verifying(request.verify_blank):
        return _execute(request, store, progress, resume, fresh, plan, executor)  # points checked at their turn


def _execute(
    request: RunRequest,
    store: Store,
    progress: Progress,
    resume: int | None,
    fresh: bool,
    plan: Plan | None,
    given: Executor | None,
) -> RunOutcome:
    plan = plan or build_plan(request)
    check_commands(plan, request.allow_commands)
    check_request(plan, request)
    version = given.fio_version if given is not None else fio_version(request.fio)
    with stop_signals_interrupt():
        executor = given or _start_executor(request, plan, version)
        locks = TargetLocks(store.path.parent)
        settings = HostSettings(store)
        try:
            prepared = _prepare_run(request, store, plan, version, executor, resume, fresh, locks, settings)
            prepared.notes.extend(blank.acceptance_lines())  # how each written device was found blank
            devices = devices_to_hold(prepared.every_target)
            with blank.held(devices) as holding:  # nothing mounts or claims them until the run ends
                try:
                    return _measure_and_finish(request, store, progress, executor, prepared, holding)
                finally:
                    blank.remember_written(devices, home_dir())  # where `safety.write_refusals` reads them
        except sqlite3.OperationalError as exc:
            raise _store_failed(store, exc) from None
        finally:
            with contextlib.suppress(sqlite3.Error):  # done already unless the run stopped before measuring
                settings.restore()
            locks.release()
            executor.close()


def _store_failed(store: Store, exc: sqlite3.OperationalError) -> RunFailed:
    """IOLAB_HOME full (or its disk failing) mid-run: the run stops with what is stored kept, and is marked
    failed. The write that failed was rolled back, which usually leaves room for marking it."""
    message = f"cannot write the iolab database ({exc}): free space in {store.path.parent} or set IOLAB_HOME"
    store.release_reserve()
    with contextlib.suppress(sqlite3.Error):
        row = store.conn.execute("SELECT id FROM runs WHERE pid = ? AND status = 'running'", (os.getpid(),)).fetchone()
        if row is not None:
            store.finish_run(row[0], "failed", message)
            message += f"; run {row[0]} keeps the points stored before it"
    return RunFailed(message)


@contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP stop a run the way Ctrl-C does: fio stops, finished points are kept, scratch
    is removed, the run is marked interrupted (exit 3). A service manager's stop or a closed terminal
    must not leave a multi-GiB scratch file and a run that says "running". Only the first such signal
    interrupts; more while the run cleans up are ignored, so the cleanup finishes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired = False

    def interrupt(signum: int, frame: object) -> None:
        nonlocal fired
        if not fired:
            fired = True
            raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def check_hosts(request: RunRequest, plan: Plan) -> None:
    """What a multi-host run refuses before any host is contacted (a dry run refuses it too)."""
    if request.hosts and request.devices:
        raise UserError(DEVICES_AND_HOSTS)
    if request.hosts and (request.stopping or plan.stopping):
        raise UserError(STOPPING_AND_HOSTS)


def _start_executor(request: RunRequest, plan: Plan, version: str) -> Executor:
    """This host's fio, or for a multi-host run every host up and checked before anything else happens."""
    if not request.hosts:
        return LocalExecutor(version)
    if plan.metadata is not None:
        raise UserError("the metadata preset runs on one host: drop --hosts (or run it on each host)")
    if any(w.job.text("filename_format") is not None for w in plan.workloads):  # files per job, made here only
        raise UserError('files = "per-job" (filename_format) runs on one host: drop --hosts, or share one file')
    check_hosts(request, plan)
    if not (request.targets or plan.targets or all(h.get("target") for h in request.hosts)):
        raise UserError(MULTIHOST_TARGET)
    from iolab.cluster.cluster import Cluster
    from iolab.cluster.hosts import HostSpec

    cluster = Cluster.start(
        [HostSpec.from_dict(h) for h in request.hosts],
        request.fio,
        version,
        request.skip_unreachable,
        request.on_host_failure,
    )
    return ClusterExecutor(cluster, version)


@dataclass
class Prepared:
    """A run ready to measure: its plan and points, its targets, and the run it is stored as."""

    plan: Plan
    targets: dict[str | None, list[Target]]
    every_target: list[Target]
    points: list[Point]
    notes: list[str]
    run_id: int
    done: dict[str, PointRecord]
    settings: HostSettings
    resumed: bool


def _prepare_run(
    request: RunRequest,
    store: Store,
    plan: Plan,
    version: str,
    executor: Executor,
    resume: int | None,
    fresh: bool,
    locks: TargetLocks,
    settings: HostSettings,
) -> Prepared:
    """Targets checked, points planned, targets locked, host settings tried (what killed runs changed put back
    first), and the run created or reopened (for --resume or the same plan again: a run is identified by its
    points' content hashes)."""
    if resume is not None and get_run(store, resume).status == "running":
        raise UserError(
            f"run {resume} is still running (pid {get_run(store, resume).pid}): wait for it to end, "
            "or stop it, before resuming it"
        )
    plan, targets, points, notes = prepare_points(request, plan, executor)
    notes += executor.notes()
    policy = plan.repeats
    assert policy is not None  # Plan.__post_init__ always sets it
    open_ended = plan.open_ended or policy.adaptive
    if not points and not open_ended:
        raise UserError("nothing to run: every workload was skipped (see the notes above; writes need --allow-write)")
    every_target = run_targets(targets, points)
    identity = plan_identity([p.key for p in points], request, [(t.path, t.hosts) for t in every_target])
    if executor.local:  # another host's targets are not this host's to lock
        locks.acquire(every_target, "a run that is starting")
    notes += restore_leftovers(store)  # before the originals are read: a killed run's values are not originals
    settings.prepare(points)
    run_id = resume if resume is not None else (None if fresh else resumable_run(store, identity))
    if run_id is None:
        # an array's sets are made of its devices, which are listed: 30 sets of 29 names would bury them
        listed = [t.path for t in every_target if t.kind != "group"]
        run_id = store.create_run(plan.name, request.command, listed, version, request.to_dict(), identity)
        done: dict[str, PointRecord] = {}
        resumed = False
    else:
        resumed = True
        store.reopen_run(run_id)
        done = {r.point.key: r for r in run_points(store, run_id) if r.measured}
        notes.insert(
            0,
            f"resuming run {run_id}: {len(done)} finished point{'s are' if len(done) != 1 else ' is'} kept and not run again",
        )
    settings.attach(run_id)
    locks.name_holder(f"run {run_id}")
    return Prepared(plan, targets, every_target, points, notes, run_id, done, settings, resumed)


def _measure_and_finish(
    request: RunRequest,
    store: Store,
    progress: Progress,
    executor: Executor,
    prepared: Prepared,
    holding: blank.HeldDevices,
) -> RunOutcome:
    """Every point measured and stored as it finishes, then snapshots, findings and the run's status.

    Whatever stops the loop (Ctrl-C, a failed host with --on-host-failure stop, a point refused at its turn),
    the scratch files this run made are removed and the points already stored are kept.
    """
    plan, run_id, points, every_target = prepared.plan, prepared.run_id, prepared.points, prepared.every_target
    notes = prepared.notes
    steady: list[SteadyOutcome] = []
    measurer: Measurer | None = None
    cleaned: list[str] = []
    try:
        notes += _claim_scratch(store, run_id, _data_targets(plan, prepared.targets, points))
        planned = _point_ids(store, run_id, points)
        probed = [_probed_path(t) for t in every_target if t.kind != "group"]
        snapshot = take_snapshot(Root(), probed)
        store.save_snapshot(run_id, "before", snapshot.to_dict())
        executor.save_snapshots(store, run_id, "before")
        measurer = Measurer(
            store,
            request.fio,
            executor,
            plan.phases,
            request.telemetry_interval,
            fio_clocksource(snapshot.clocksource),  # the cluster executor leaves it out of its job files
            allow_commands=request.allow_commands,
            stopping=_stop_rule(request, plan),
            workdirs=Workdirs(store, run_id),
            held=holding,
        )
        session = Session(
            store,
            run_id,
            measurer,
            progress,
            prepared.done,
            planned,
            len(planned),
            plan=plan,
            settings=prepared.settings,
        )
        if plan.open_ended:
            later = estimate_seconds(replace(plan, workloads=[], targets=[t.path for t in prepared.targets[None]]))
            notes.append(_open_ended_note(plan, later))
        progress.run_started(run_id, [p for p in points if p.key not in prepared.done], notes)
        for point in points:
            session.run(point)
        steady = _open_ended(session, plan, prepared.targets)
        holding.watch.check("at the end of the run")
    except KeyboardInterrupt:
        kept = get_run(store, run_id).points_done
        store.finish_run(run_id, "interrupted", "interrupted by the user")
        raise RunFailed(
            f"interrupted: {kept} points finished and are kept in run {run_id}; "
            f"`iolab run --resume {run_id}` runs the rest"
        ) from None
    except RunFailed as exc:
        store.finish_run(run_id, "failed", str(exc))
        raise RunFailed(f"{exc}; run {run_id} keeps the points finished before it") from None
    except UserError as exc:  # a point refused at its turn (chosen while running): the run stops there
        store.finish_run(run_id, "failed", str(exc))
        raise
    finally:
        with contextlib.suppress(sqlite3.Error):  # the values are back first; a full store leaves records open
            cleaned += prepared.settings.restore()  # before the "after" snapshot, which shows the host as found
        with contextlib.suppress(sqlite3.Error):  # a full store must not keep the hosts' scratch files
            executor.save_snapshots(store, run_id, "after")
        warnings = executor.cleanup(every_target) + scratch.remove(store, open_scratch(store, run_id)).kept_notes()
        cleaned += warnings
        if measurer is not None:
            measurer.notes.extend(cleaned)
    store.save_snapshot(run_id, "after", take_snapshot(Root(), probed).to_dict())
    policy = plan.repeats
    assert policy is not None  # Plan.__post_init__ always sets it
    findings = _run_findings(store, run_id, snapshot, steady, policy.cov_target if policy.adaptive else None)
    store.save_findings(run_id, findings)
    outcome = _outcome(store, run_id, session, measurer, notes, findings, executor)
    outcome.resumed = prepared.resumed
    outcome.warnings = warnings
    return outcome


def _claim_scratch(store: Store, run_id: int, targets: list[Target]) -> list[str]:
    """Remove what killed runs left, then record this run's scratch files before anything writes them
    (so a kill at any moment leaves them findable); the notes say what was removed or kept."""
    left = scratch.remove(store, scratch.leftovers(store))
    notes = [f"removed {len(left.removed)} scratch path(s) left by killed runs: {', '.join(left.removed)}"]
    notes = (notes if left.removed else []) + left.kept_notes()
    for target in targets:
        if target.scratch and not target.hosts:
            named = not os.path.basename(target.filename).startswith(SCRATCH_PREFIX)
            scratch.create_file(store, run_id, target.filename, target.size_bytes if named else None)
    return notes


def _probed_path(target: Target) -> str:
    """Where the host snapshot looks for a target's file system and device: a file iolab made for a job
    by its directory, which is there before the file is made and after it is removed."""
    return os.path.dirname(target.filename) if target.kind == "file" and target.scratch else target.path


def _open_ended_note(plan: Plan, seconds: float) -> str:
    """What the run says at its start about the points it chooses while running, with their seconds."""
    if plan.metadata is not None and not (plan.qd_searches or plan.latency_curve or plan.steady_rounds):
        counts = len(plan.metadata.threads)
        return (
            f"file create, stat and remove at {counts} thread count{'s' if counts > 1 else ''}, "
            f"each phase about {plan.metadata.runtime:g} s: about {seconds:.0f} s"
        )
    return f"more points are chosen as the results come in: up to about {seconds:.0f} s"


def _data_targets(plan: Plan, targets: dict[str | None, list[Target]], points: list[Point]) -> list[Target]:
    """The targets whose scratch file a point reads or writes: not those only file create/stat/remove or
    per-job files work on (in directories of their own), which would get a scratch file written and never
    used."""
    found = {p.target for p in points if not p.job.is_metadata and not p.per_job_files}
    if plan.qd_searches or plan.latency_curve or plan.steady_rounds:
        found |= set(targets[None])
    return sorted(found, key=lambda t: t.path)


def _point_ids(store: Store, run_id: int, points: list[Point]) -> dict[str, int]:
    """Each point's stored id by key: those a resumed run has already, the new ones recorded as pending."""
    statuses = point_statuses(store, run_id)
    new = [p for p in points if p.key not in statuses]
    planned = {key: pid for key, (pid, _) in statuses.items()}
    planned.update(zip([p.key for p in new], store.plan_points(run_id, new), strict=True))
    return planned


def _outcome(
    store: Store,
    run_id: int,
    session: Session,
    measurer: Measurer,
    notes: list[str],
    findings: list[Finding],
    executor: Executor,
) -> RunOutcome:
    """The run's status (complete, partial: some points or hosts failed, failed: every point did), stored."""
    failed = session.failed
    attempted = len(session.done) + session.measured
    status = "complete" if not failed else ("failed" if len(failed) == attempted else "partial")
    if status == "complete" and session.partial:
        status = "partial"
    store.finish_run(run_id, status, "; ".join(failed + session.partial + measurer.notes))
    if session.reruns:
        measurer.note(f"measured again, once, because something else was busy during them: {', '.join(session.reruns)}")
    if session.still_busy:
        measurer.note(
            f"something else was busy during {', '.join(session.still_busy)} as well; kept as measured (the host "
            f"stayed busy, or the budget of {session.remeasure_budget} re-measured point(s) was spent): "
            "the findings name what was busy"
        )
    return RunOutcome(
        run_id,
        status,
        notes + measurer.notes,
        failed,
        skipped=len(session.done),
        findings=findings,
        failed_hosts=executor.lost_hosts(),
    )


def _stop_rule(request: RunRequest, plan: Plan) -> StopRule | None:
    """Stopping when known: the command line's settings over the plan's [stopping]; None when neither asks."""
    if not request.stopping and not plan.stopping:
        return None
    return StopRule.from_settings({**plan.stopping, **request.stopping})
