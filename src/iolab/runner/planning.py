"""Planning a run's points: targets resolved, workloads crossed with targets (and an array's sets), each point
checked by the write guard before anything runs; what a plan skips, said."""

from __future__ import annotations

from dataclasses import replace

from iolab.errors import UserError
from iolab.fio.run import check_point
from iolab.models import Plan, Point, Target, Workload
from iolab.plan.effects import plan_workloads
from iolab.plan.estimate import chosen_while_running
from iolab.plan.limits import MAX_POINTS
from iolab.plan.repeats import run_order
from iolab.runner.arrays import array_points, resolve_members
from iolab.runner.executors import Executor
from iolab.runner.metadata import check_room
from iolab.runner.request import RunRequest
from iolab.runner.safety import check_write, write_refusal
from iolab.runner.targets import scratch_bytes


def resolve_targets(request: RunRequest, plan: Plan, executor: Executor) -> dict[str | None, list[Target]]:
    """Targets by the path workloads name (None: the default targets), as the executor sees them.

    A directory's scratch file is sized for the workloads that run on it (`scratch_bytes`): the default
    targets carry every workload without a target of its own, open-ended parts and precondition too.
    """
    on_default = [w for w in plan_workloads(plan) if w.target is None]
    default_paths = _default_paths(request, plan, executor, on_default)
    users = _users(plan, default_paths, on_default)
    cache = {  # a path only a workload names may be a new file for it (`runner.targets.resolve_target`)
        path: executor.target(
            path, request.allow_write, request.size, _scratch_size(request, workloads), path not in default_paths
        )
        for path, workloads in users.items()
    }
    resolved: dict[str | None, list[Target]] = {None: [cache[p] for p in default_paths]}
    return resolved | {w.target: [cache[w.target]] for w in plan.workloads if w.target is not None}


def _default_paths(request: RunRequest, plan: Plan, executor: Executor, on_default: list[Workload]) -> list[str]:
    """The default targets' paths. A job file whose jobs all name their filename= uses none: the current
    directory is neither checked nor listed as the run's target (`ls` showed ".")."""
    unused = not on_default and not plan.open_ended and not request.targets and not plan.targets
    return [] if unused else executor.default_paths(request.targets or plan.targets)


def _users(plan: Plan, default_paths: list[str], on_default: list[Workload]) -> dict[str, list[Workload]]:
    """The workloads that run on each path: the default targets' and those naming their own."""
    users: dict[str, list[Workload]] = {path: list(on_default) for path in default_paths}
    for workload in plan.workloads:
        if workload.target is not None:
            users.setdefault(workload.target, []).append(workload)
    return users


def _scratch_size(request: RunRequest, workloads: list[Workload]) -> int | None:
    """The scratch file a target's workloads need. A directory no workload reads or writes (only file
    create/stat/remove, which work in a directory of their own) gets none, so no size is asked of its
    file system."""
    return scratch_bytes(request.size, workloads) if any(not w.job.is_metadata for w in workloads) else 0


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


def data_targets(plan: Plan, targets: dict[str | None, list[Target]], points: list[Point]) -> list[Target]:
    """The targets whose scratch file a point reads or writes, as the run lays them out and the dry run
    lists them: not those only file create/stat/remove or per-job files work on (in directories of their
    own), which would get a scratch file written and never used; the default targets when open-ended parts
    (QD searches, latency curves, steady rounds) will use them."""
    found = {p.target for p in points if not p.job.is_metadata and not p.per_job_files}
    if plan.qd_searches or plan.latency_curve or plan.steady_rounds:
        found |= set(targets[None])
    return sorted(found, key=lambda t: t.path)


def array_plan(request: RunRequest, plan: Plan) -> tuple[Plan, dict[str | None, list[Target]], list[Point], list[str]]:
    """A `--devices` run: each drive checked as a target, the workloads run together, alone and in sets.

    Returns the plan without its open-ended parts (an array run measures fixed workloads; a note says what
    was left out), the members, the points and notes.
    """
    members = resolve_members(request.devices, request.allow_write, request.size)
    assert plan.repeats is not None
    dropped = _dropped(plan)
    base = array_points(plan, members, tuple(request.array_modes), request.subsets)
    _check_count(len(base), plan.repeats.count, "array points", "ask for fewer --subsets or --array-modes")
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


def _dropped(plan: Plan) -> list[str]:
    """The open-ended parts an array run leaves out; a plan of nothing else is refused."""
    assert plan.repeats is not None
    dropped = [*chosen_while_running(plan), *(["adaptive repeats"] if plan.repeats.adaptive else [])]
    if dropped and not plan.workloads:
        raise UserError(
            f"--devices measures fixed workloads, and {plan.name} chooses its points while running "
            f"({', '.join(dropped)}): run it on one device at a time"
        )
    return dropped


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
            why = _why_skipped(point)
            if why is not None:
                skipped.setdefault(target.path, []).append(why)
                continue
            check_point(point)  # refused now, before a run exists, rather than at its turn
            check_write(point.name, target, point.options)
            base.append(point)
    assert plan.repeats is not None
    if skipped and not base and not plan.open_ended:
        raise UserError(_nothing_to_run(skipped))
    _check_count(len(base), plan.repeats.count, "points", "split the plan or use fewer targets")
    points = [replace(p, repeat=r) for p, r in run_order(base, plan.repeats.count, plan.repeats.interleave)]
    return points, _notes(skipped, targets)


def _check_count(points: int, repeats: int, what: str, advice: str) -> None:
    """Refuse a run of more than MAX_POINTS points, saying how to make it smaller."""
    if points * repeats > MAX_POINTS:
        raise UserError(f"{points} {what} x {repeats} repeats: a run may have at most {MAX_POINTS}; {advice}")


def _notes(skipped: dict[str, list[str]], targets: dict[str | None, list[Target]]) -> list[str]:
    """The plan's notes: what each target skipped, and each target's buffered or RAM-backed I/O."""
    notes = [f"{path}: skipped {', '.join(names)} (writes need --allow-write)" for path, names in skipped.items()]
    return notes + [note for target in {t for ts in targets.values() for t in ts} for note in _io_notes(target)]


def _why_skipped(point: Point) -> str | None:
    """How a point a plan skips is named in its note (a read-only target's write, a metadata job on a
    file), or None when it runs."""
    if _skipped(point):
        return point.name
    if point.job.is_metadata and point.target.kind != "directory":
        return f"{point.name} (needs a directory)"
    return None


def _nothing_to_run(skipped: dict[str, list[str]]) -> str:
    """Why a plan whose every point was skipped has nothing to run, for its first target."""
    path, names = next(iter(skipped.items()))
    writes = not any("needs a directory" in n for n in names)
    why = " (writes need --allow-write, and never go to a file or device holding data)" if writes else ""
    return f"nothing to run: {path} cannot take {', '.join(names)}{why}"


def _io_notes(target: Target) -> list[str]:
    """A target's note on buffered I/O (no O_DIRECT) and on a RAM-backed result."""
    if not target.direct:
        ram = " and the result is RAM-backed" if target.ram_backed else ""
        return [f"{target.path}: {target.fs_type or 'this file system'} has no O_DIRECT; using buffered I/O{ram}"]
    if target.ram_backed:
        where = (
            f"on {target.fs_type}"
            if target.fs_type
            else "a device that keeps its data in RAM (zram, brd, or a loop file on tmpfs)"
        )
        return [f"{target.path}: {where}, the result is RAM-backed"]
    return []
