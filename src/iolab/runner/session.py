"""One run in progress (`Session`): each point measured once and stored at once, finished ones reused when
resuming, targets readied (precondition, scratch fill, per-job and metadata directories) before their first
point, and a disturbed point measured again within the run's budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from iolab.doctor.derived import interference
from iolab.errors import RunFailed
from iolab.fio.run import files_dir, metadata_dir
from iolab.models import Plan, Point, PointRecord, Precondition, Result, Target, units
from iolab.models.material import DOCTOR_METRICS
from iolab.runner import scratch
from iolab.runner.host_settings import HostSettings
from iolab.runner.measure import Measurer
from iolab.runner.phases import discard, fill_scratch, run_unmeasured
from iolab.runner.progress import Progress
from iolab.runner.safety import write_refusal
from iolab.runner.targets import identity_change
from iolab.store.db import Artifact, Store
from iolab.store.queries import point_series, run_points

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
        known, result = self._known(point, again)
        if known:
            return result
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
        self._count_outcome(point, error, lost)
        return result

    def _known(self, point: Point, again: bool) -> tuple[bool, Result | None]:
        """(True, its result) for a point this run already has; else plan it (or clear its old rows) and
        return (False, None). `again` forgets a finished point first."""
        if again and point.key in self.done:
            self.store.reset_point(self.planned[point.key])
            del self.done[point.key]
        finished = self.done.get(point.key)
        if finished is not None:
            return True, finished.result
        if point.key in self.results and not again:  # an adaptive search can ask for a depth it already ran
            return True, self.results[point.key]
        if point.key not in self.planned:
            (self.planned[point.key],) = self.store.plan_points(self.run_id, [point])
            self.total += 1
        elif point.key in self.results:
            self.store.reset_point(self.planned[point.key])
        return False, None

    def _count_outcome(self, point: Point, error: str, lost: list[str]) -> None:
        """A failed or partial point said at the end; a lost host stops the run when the user asked so."""
        if error:
            self.failed.append(f"{point.name} on {point.target.path}: {error}")
        if lost and not error:
            self.partial.append(f"{point.name}: without {', '.join(lost)}")
        if lost and self.measurer.executor.stops_on_host_loss:
            raise RunFailed(f"{point.name}: host {lost[0]}; stopped there as --on-host-failure stop asks")

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
        """Before a point: write the target's scratch file (first point only), then precondition it.

        In that order: the fill writes every block of the file sequentially, so a precondition before it
        would be overwritten, and the points would read and write the fill's state, not the precondition's.
        Not on other hosts: there fio lays out each host's scratch file itself before its first job.
        """
        assert self.plan is not None
        if target.hosts:
            return
        pre = self.plan.phases.precondition
        first = target not in self.prepared
        self.prepared.add(target)
        if point.job.is_metadata:
            self.metadata_directory(target)
        elif point.per_job_files:
            self._per_job_directory(point)
        elif target.scratch and target not in self.filled:
            self.filled.add(target)
            self.progress.phase(f"writing scratch file {target.filename} ({units.size(target.size_bytes)})")
            with self.measurer.log.phase("fill", f"{target.filename} ({units.size(target.size_bytes)})"):
                fill_scratch(target, self.measurer.fio, self.measurer.workdirs)
        if pre is not None and _preconditions(pre, first, point) and write_refusal(target) is None:
            self._precondition(target, pre)

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


def _preconditions(pre: Precondition, first: bool, point: Point) -> bool:
    """Whether this point is preceded by the plan's preconditioning: once, before the target's first point;
    or before each point that writes, the target's first among them."""
    if pre.scope == "once":
        return first
    return pre.scope == "before_each_write" and point.job.writes
