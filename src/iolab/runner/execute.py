"""A run, start to finish: resolve targets, plan points, run each, store each at once.

Order matters for the promise "nothing lost": targets and fio are checked
before the run exists; every planned point is recorded as pending before
the first one runs; each finished point is committed immediately; a
Ctrl-C or a failing point never discards what finished before it.
"""

from __future__ import annotations

import shlex
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from iolab.errors import RunFailed, UserError
from iolab.fio.logs import read_logs
from iolab.fio.parse import aggregate, parse_output
from iolab.fio.run import HANG_GRACE_S, LOG_PREFIX, fio_version, point_jobfile, run_fio
from iolab.models import Plan, Point, Result, Target
from iolab.runner.phases import fill_scratch, remove_scratch
from iolab.runner.progress import Progress
from iolab.runner.targets import resolve_target
from iolab.store.db import Artifact, Store


@dataclass
class RunOptions:
    """How to run a plan: which targets, whether writes are allowed, and fio itself."""

    targets: list[str]
    allow_write: bool = False
    size: int | None = None
    fio: str = "fio"
    command: str = ""


@dataclass
class RunOutcome:
    run_id: int
    status: str
    notes: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def plan_points(plan: Plan, targets: list[Target]) -> tuple[list[Point], list[str]]:
    """Workloads x targets x repeats, leaving out writes to read-only targets (with a note)."""
    points: list[Point] = []
    notes: list[str] = []
    for target in targets:
        skipped = []
        for workload in plan.workloads:
            for repeat in range(plan.repeat):
                point = Point(name=workload.name, target=target, options=dict(workload.options), repeat=repeat)
                if point.writes and not target.writable:
                    if repeat == 0:
                        skipped.append(workload.name)
                    continue
                points.append(point)
        if skipped:
            notes.append(f"{target.path}: skipped {', '.join(skipped)} (writes need --allow-write)")
        if not target.direct:
            ram = " and the result is RAM-backed" if target.ram_backed else ""
            notes.append(f"{target.path}: {target.fs_type or 'this file system'} has no O_DIRECT; using buffered I/O{ram}")
        elif target.ram_backed:
            notes.append(f"{target.path}: on {target.fs_type}, the result is RAM-backed")
    return points, notes


def execute(plan: Plan, options: RunOptions, store: Store, progress: Progress) -> RunOutcome:
    """Run a plan; raises RunFailed on interruption, after keeping every finished point."""
    version = fio_version(options.fio)
    targets = [resolve_target(t, options.allow_write, options.size) for t in options.targets]
    points, notes = plan_points(plan, targets)
    if not points:
        raise UserError("nothing to run: every workload writes and no target allows writes (add --allow-write)")
    run_id = store.create_run(plan.name, options.command, [t.path for t in targets], version)
    point_ids = store.plan_points(run_id, points)
    progress.run_started(run_id, points, notes)
    failed: list[str] = []
    done = 0
    try:
        for target in targets:
            if target.scratch and any(p.target == target for p in points):
                progress.phase(f"writing scratch file {target.filename} ({target.size_bytes / 2**30:.1f} GiB)")
                fill_scratch(target, options.fio)
        for index, (point, point_id) in enumerate(zip(points, point_ids), start=1):
            progress.point_started(index, len(points), point)
            result, error = run_point(point, point_id, store, options.fio, version)
            progress.point_finished(index, len(points), point, result, error)
            if error:
                failed.append(f"{point.name} on {point.target.path}: {error}")
            done += 1
    except KeyboardInterrupt:
        store.finish_run(run_id, "interrupted", f"interrupted after {done} of {len(points)} points")
        raise RunFailed(
            f"interrupted: {done} of {len(points)} points finished and are kept in run {run_id} (`iolab show {run_id}`)"
        ) from None
    except RunFailed as exc:
        store.finish_run(run_id, "failed", str(exc))
        raise RunFailed(f"{exc}; run {run_id} keeps the {done} points finished before it") from None
    finally:
        for target in targets:
            remove_scratch(target)
    status = "complete" if not failed else ("failed" if len(failed) == len(points) else "partial")
    store.finish_run(run_id, status, "; ".join(failed))
    return RunOutcome(run_id=run_id, status=status, notes=notes, failed=failed)


def _fio_error(stderr: str, returncode: int) -> str:
    """fio's own words for a failure: its last error line, else the exit code."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower() or ln.startswith("fio:")]
    return (errors or lines or [f"fio exited with code {returncode}"])[-1]


def run_point(point: Point, point_id: int, store: Store, fio: str, version: str) -> tuple[Result | None, str]:
    """Run one point and store it (result or failure); returns (result, error text)."""
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="iolab-point-") as tmp:
        workdir = Path(tmp)
        jobfile = workdir / "point.fio"
        jobfile.write_text(point_jobfile(point, workdir))
        output = workdir / "fio.json"
        timeout = point.expected_seconds * 1.5 + HANG_GRACE_S
        try:
            invocation = run_fio(jobfile, output, fio, timeout)
        except RunFailed as exc:  # hung and killed: this point failed, the run goes on
            store.fail_point(point_id, str(exc), [Artifact("job.fio", jobfile.read_bytes())], started)
            return None, str(exc)
        artifacts = [
            Artifact("job.fio", jobfile.read_bytes()),
            Artifact("command", shlex.join(invocation.command).encode()),
            Artifact("stderr", invocation.stderr.encode()),
        ]
        text = output.read_text(errors="replace") if output.exists() else ""
        if text:
            artifacts.append(Artifact("fio.json", text.encode()))
        samples, logs = read_logs(workdir, LOG_PREFIX)
        artifacts.extend(Artifact(f"logs/{name}", body.encode()) for name, body in logs.items())
        try:
            parsed = parse_output(text, source=f"fio output of {point.name}")
            result = aggregate(parsed.groups[0].entries, version) if parsed.groups else None
        except UserError:
            result = None
        if invocation.returncode != 0 or result is None or result.error:
            error = _fio_error(invocation.stderr, invocation.returncode)
            store.fail_point(point_id, error, artifacts, started)
            return None, error
        store.record_point(point_id, result, samples, artifacts, started, time.time())
        return result, ""
