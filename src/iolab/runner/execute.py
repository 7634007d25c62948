"""A run's lifecycle, start to finish: resolve targets and plan points (`runner.planning`), run each
through the run's `Session` (`runner.session`) and the open-ended parts (`runner.open_ended`), store each
at once, then diagnose and finish.

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

from iolab.errors import RunFailed, UserError
from iolab.fio.options import unknown_options_allowed
from iolab.fio.run import fio_clocksource, fio_version
from iolab.models import Finding, Plan, Point, PointRecord, Snapshot, Target
from iolab.models.material import SteadyOutcome
from iolab.models.point import SCRATCH_PREFIX
from iolab.plan.effects import check_commands
from iolab.plan.estimate import estimate_seconds
from iolab.probe import Root, take_snapshot
from iolab.runner import blank, scratch
from iolab.runner.executors import MULTIHOST_TARGET, ClusterExecutor, Executor, LocalExecutor, check_hosts
from iolab.runner.host_settings import HostSettings, check_request, restore_leftovers
from iolab.runner.locks import TargetLocks
from iolab.runner.measure import Measurer
from iolab.runner.open_ended import measure_open_ended
from iolab.runner.planning import data_targets, prepare_points, run_targets
from iolab.runner.progress import Progress
from iolab.runner.request import RunRequest, build_plan, plan_identity
from iolab.runner.safety import devices_to_hold
from iolab.runner.session import Session
from iolab.runner.stopping import StopRule
from iolab.runner.workdirs import Workdirs
from iolab.store.db import Store, home_dir
from iolab.store.queries import get_run, open_scratch, point_statuses, resumable_run, run_material, run_points


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


def _run_findings(
    store: Store, run_id: int, snapshot: Snapshot, steady: list[SteadyOutcome], cov_target: float | None
) -> list[Finding]:
    """The doctor's findings on the finished run (`snapshot`: the Snapshot taken before it). The doctor (its
    rules and the analysis behind them, ~0.07 CPU-s of imports) is loaded here, when a run has finished: a
    run refused before it starts never loads it."""
    from iolab.doctor.engine import diagnose_run

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
    _check_not_running(store, resume)
    plan, targets, points, notes = prepare_points(request, plan, executor)
    notes += executor.notes()
    _check_something_to_run(plan, points)
    every_target = run_targets(targets, points)
    identity = plan_identity([p.key for p in points], request, [(t.path, t.hosts) for t in every_target])
    if executor.local:  # another host's targets are not this host's to lock
        locks.acquire(every_target, "a run that is starting")
    notes += restore_leftovers(store)  # before the originals are read: a killed run's values are not originals
    settings.prepare(points)
    found = resume if resume is not None else (None if fresh else resumable_run(store, identity))
    resumed = found is not None
    if found is None:
        # an array's sets are made of its devices, which are listed: 30 sets of 29 names would bury them
        listed = [t.path for t in every_target if t.kind != "group"]
        run_id = store.create_run(plan.name, request.command, listed, version, request.to_dict(), identity)
    else:
        run_id = found
    done = _reopened(store, run_id, notes) if resumed else {}
    settings.attach(run_id)
    locks.name_holder(f"run {run_id}")
    return Prepared(plan, targets, every_target, points, notes, run_id, done, settings, resumed)


def _check_something_to_run(plan: Plan, points: list[Point]) -> None:
    """Refuse a run with no fixed point and nothing chosen while running."""
    assert plan.repeats is not None  # Plan.__post_init__ always sets it
    if not points and not (plan.open_ended or plan.repeats.adaptive):
        raise UserError("nothing to run: every workload was skipped (see the notes above; writes need --allow-write)")


def _check_not_running(store: Store, resume: int | None) -> None:
    """Refuse to resume a run whose process is still running it."""
    if resume is not None and get_run(store, resume).status == "running":
        raise UserError(
            f"run {resume} is still running (pid {get_run(store, resume).pid}): wait for it to end, "
            "or stop it, before resuming it"
        )


def _reopened(store: Store, run_id: int, notes: list[str]) -> dict[str, PointRecord]:
    """A run resumed: reopened, its finished points kept (said first among the notes), by point key."""
    store.reopen_run(run_id)
    done = {r.point.key: r for r in run_points(store, run_id) if r.measured}
    kept = f"{len(done)} finished point{'s are' if len(done) != 1 else ' is'} kept and not run again"
    notes.insert(0, f"resuming run {run_id}: {kept}")
    return done


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
    try:
        notes += _claim_scratch(store, run_id, data_targets(plan, prepared.targets, points))
        planned = _point_ids(store, run_id, points)
        probed = [_probed_path(t) for t in every_target if t.kind != "group"]
        snapshot = take_snapshot(Root(), probed)
        store.save_snapshot(run_id, "before", snapshot.to_dict())
        executor.save_snapshots(store, run_id, "before")
        measurer = _measurer(request, store, executor, plan, snapshot.clocksource, run_id, holding)
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
        notes += _open_ended_notes(plan, prepared.targets)
        progress.run_started(run_id, [p for p in points if p.key not in prepared.done], notes)
        for point in points:
            session.run(point)
        steady = measure_open_ended(session, plan, prepared.targets)
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
        warnings = _clean_up(store, executor, prepared, measurer)
    store.save_snapshot(run_id, "after", take_snapshot(Root(), probed).to_dict())
    findings = _run_findings(store, run_id, snapshot, steady, _cov_target(plan))
    store.save_findings(run_id, findings)
    outcome = _outcome(store, run_id, session, measurer, notes, findings, executor)
    outcome.resumed = prepared.resumed
    outcome.warnings = warnings
    return outcome


def _cov_target(plan: Plan) -> float | None:
    """The spread adaptive repeats aimed at, which the findings hold the run to; None without them."""
    assert plan.repeats is not None  # Plan.__post_init__ always sets it
    return plan.repeats.cov_target if plan.repeats.adaptive else None


def _clean_up(store: Store, executor: Executor, prepared: Prepared, measurer: Measurer | None) -> list[str]:
    """However the run ended: host settings put back, the hosts' "after" snapshots, scratch files removed.

    Returns the warnings (what could not be removed); the measurer's notes get them and the restores."""
    cleaned: list[str] = []
    with contextlib.suppress(sqlite3.Error):  # the values are back first; a full store leaves records open
        cleaned += prepared.settings.restore()  # before the "after" snapshot, which shows the host as found
    with contextlib.suppress(sqlite3.Error):  # a full store must not keep the hosts' scratch files
        executor.save_snapshots(store, prepared.run_id, "after")
    removed = scratch.remove(store, open_scratch(store, prepared.run_id))
    warnings = executor.cleanup(prepared.every_target) + removed.kept_notes()
    if measurer is not None:
        measurer.notes.extend(cleaned + warnings)
    return warnings


def _measurer(
    request: RunRequest,
    store: Store,
    executor: Executor,
    plan: Plan,
    clocksource: str | None,
    run_id: int,
    holding: blank.HeldDevices,
) -> Measurer:
    """The run's measurer: its phases, telemetry, stopping rule and held devices."""
    return Measurer(
        store,
        request.fio,
        executor,
        plan.phases,
        request.telemetry_interval,
        fio_clocksource(clocksource),  # the cluster executor leaves it out of its job files
        stopping=_stop_rule(request, plan),
        workdirs=Workdirs(store, run_id),
        held=holding,
    )


def _open_ended_notes(plan: Plan, targets: dict[str | None, list[Target]]) -> list[str]:
    """What the open-ended parts will add to the run's time, said before it starts."""
    if not plan.open_ended:
        return []
    later = estimate_seconds(replace(plan, workloads=[], targets=[t.path for t in targets[None]]))
    return [_open_ended_note(plan, later)]


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
