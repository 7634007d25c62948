"""What a doctor rule is, and the context every rule reads.

A rule carries the catalogue's fields (id, family, applies-when, trigger,
severity, why, fix, evidence, source) so `docs/rules.md` and each Finding
are generated from one place. Its `check` yields Findings: one per device
or job that triggers, or a NOT_EVALUATED Finding when its input could not
be read. A rule that does not apply yields nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, cast

from iolab.analysis.device_traffic import DeviceTraffic
from iolab.analysis.interference import Interference
from iolab.analysis.invariants import Violation, violations
from iolab.doctor.derived import ArrayView, PointSeries, QdCurve, RepeatSet
from iolab.models import Finding, Point, Result, Severity
from iolab.models.effective_options import effective_options
from iolab.models.finding import Quote, unreadable_part
from iolab.models.job_options import JobOptions
from iolab.models.material import HostRow, SteadyOutcome
from iolab.models.snapshot import BlockDevice, Snapshot

# The catalogue grades five levels; Finding has three that matter to a user:
# critical (invalid result or failing hardware), warning (a likely real
# shortfall, 5% and up) and info (context or a minor effect).
LEVELS: dict[str, Severity] = {
    "critical": Severity.CRITICAL,
    "high": Severity.WARNING,
    "medium": Severity.WARNING,
    "low": Severity.INFO,
    "info": Severity.INFO,
}

SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2"})
ASYNC_ENGINES = frozenset({"libaio", "io_uring", "posixaio", "windowsaio", "solarisaio", "spdk"})


T = TypeVar("T")


@dataclass(frozen=True)
class JobView:
    """One fio job as methodology rules see it: effective options, target, result.

    Built from a job-file section (lint) or from a Point and its Result
    (runs); `options` are then those fio ran with (`effective_options`, as the job file has them).
    `job` reads them as fio does (`JobOptions`); the properties below are
    the parts rules ask for.
    """

    name: str
    options: Mapping[str, str]
    target_path: str | None = None
    target_kind: str | None = None
    ram_backed: bool = False
    result: Result | None = None
    key: str = ""  # what a finding's quote names it by: its stored id, its `Point.key`, or a section's name
    job: JobOptions = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "job", JobOptions(self.options))
        if not self.key:
            object.__setattr__(self, "key", self.name)

    @classmethod
    def from_point(cls, point: Point, result: Result | None, key: str = "") -> JobView:
        """`key` names the point for quotes: its stored id, or its place among the points judged (two imported
        outputs of one job can share a `Point.key`); its `Point.key` when none is given."""
        key = key or point.key
        target = point.target
        return cls(point.name, effective_options(point), target.path, target.kind, target.ram_backed, result, key)

    @classmethod
    def from_options(cls, name: str, options: Mapping[str, str]) -> JobView:
        job = JobOptions(options)
        filename = job.given("filename")
        if filename:
            first = filename.split(":")[0]
            kind = "block" if first.startswith("/dev/") else "file"
            return cls(name, options, filename, kind)
        directory = job.given("directory")
        if directory:
            return cls(name, options, directory, "directory")
        return cls(name, options)

    def given(self, key: str) -> str | None:
        """The option as the job gave it, under any of its names (`JobOptions.given`); None when unset."""
        return self.job.given(key)

    # The job's values, each read once: its options do not change, and the method rules ask for them
    # ~20,000 times judging 1,000 imported points.
    @cached_property
    def engine(self) -> str:
        return self.job.engine

    @cached_property
    def iodepth(self) -> int:
        return self.job.iodepth

    @cached_property
    def numjobs(self) -> int:
        return self.job.numjobs

    @cached_property
    def direct(self) -> bool:
        return self.job.direct

    @cached_property
    def rw(self) -> str:
        """The rw mode without fio's `:<n>` suffix (`job.rw_suffix`)."""
        return self.job.rw

    @cached_property
    def reads(self) -> bool:
        return self.job.reads

    @cached_property
    def writes(self) -> bool:
        return self.job.writes

    @cached_property
    def sequential(self) -> bool:
        return self.job.sequential

    @cached_property
    def bs(self) -> int:
        return self.job.bs

    @cached_property
    def time_based(self) -> bool:
        return self.job.time_based

    @cached_property
    def runtime_seconds(self) -> float | None:
        return self.job.runtime_seconds

    @cached_property
    def ramp_seconds(self) -> float:
        return self.job.ramp_seconds

    @cached_property
    def metadata(self) -> bool:
        """A file create/stat/delete job: no data set, no ramp, CPU-bound by nature."""
        return self.job.is_metadata

    @cached_property
    def violations(self) -> list[Violation]:
        """The invariants its result breaks (`analysis.invariants`), none without a result: found once, by the engine
        sorting valid points from invalid ones, and read again by RES-INVARIANT (both computed them, ~2,000
        checks judging 1,000 imported points)."""
        return violations(self.result, self.job) if self.result is not None else []

    @cached_property
    def data_set_bytes(self) -> int | None:
        """Distinct bytes the job touches: its size once when its jobs share one file or device (fio's
        numjobs all work on the same `filename` unless offset_increment spreads them), else per job."""
        size = self.job.size_bytes
        if size is None:
            return None
        filename = self.job.given("filename") or ""
        shared = bool(filename) and ":" not in filename and not self.job.given("offset_increment")
        return size if shared else size * self.numjobs


@dataclass
class Context:
    """What one doctor call has to work with; any part may be absent.

    A rule's `needs` names the parts it reads: "snapshot", "jobs", "results"
    (jobs with a result), "series" (per-second bandwidth), "arrays" (devices
    together, alone and in sets), "curves" (queue-depth curves), "hosts"
    (each host's part of multi-host points), "steady" (steady-state rounds),
    "interference" (what else used the CPUs and the target's devices per point), "traffic" (fio's bytes
    against the target's devices' bytes per point), "repeats" (the repeats of each workload).
    """

    snapshot: Snapshot | None = None
    jobs: list[JobView] = field(default_factory=list)
    mem_total_bytes: int | None = None
    series: list[PointSeries] = field(default_factory=list)
    arrays: list[ArrayView] = field(default_factory=list)
    curves: list[QdCurve] = field(default_factory=list)
    hosts: dict[str, list[HostRow]] = field(default_factory=dict)  # point name -> its hosts' rows
    steady: list[SteadyOutcome] = field(default_factory=list)
    interference: list[Interference] = field(default_factory=list)
    traffic: list[DeviceTraffic] = field(default_factory=list)
    repeats: list[RepeatSet] = field(default_factory=list)
    cov_target: float | None = None  # the plan's, when its repeats were adaptive
    _shared: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def shared(self, key: str, compute: Callable[[], T]) -> T:
        """A value several rules derive from this context, computed once: the dip and step rules segment each
        series and measure its noise once between them (each did it itself, and an import of fio-plot's
        collection took twice as long)."""
        if key not in self._shared:
            self._shared[key] = compute()
        return cast(T, self._shared[key])

    def supplied(self) -> set[str]:
        """The parts this context has, as rules name them in `needs`."""
        have = {
            name
            for name in ("series", "arrays", "curves", "hosts", "steady", "interference", "traffic", "repeats")
            if getattr(self, name)
        }
        have |= {"snapshot"} if self.snapshot is not None else set()
        have |= {"jobs"} if self.jobs else set()
        have |= {"results"} if self.results else set()
        return have

    @property
    def results(self) -> list[JobView]:
        return [j for j in self.jobs if j.result is not None]

    def devices(self) -> list[BlockDevice]:
        """Devices the rules judge: the targets' disks (and their dm/md members), else all."""
        if self.snapshot is None:
            return []
        snap = self.snapshot
        names = [t.device for t in snap.targets if t.device]
        names += [n for j in self.jobs for n in self._job_devices(j)]
        if not names:
            return [d for d in snap.devices if not d.name.startswith(("loop", "zram"))]
        chosen: list[BlockDevice] = []
        queue = list(dict.fromkeys(names))
        while queue:
            device = snap.device(queue.pop(0))
            if device is not None and device not in chosen:
                chosen.append(device)
                queue.extend(device.slaves)
        return chosen

    def _job_devices(self, job: JobView) -> list[str]:
        if self.snapshot is None or job.target_path is None:
            return []
        for target in self.snapshot.targets:
            if target.path == job.target_path and target.device:
                return [target.device]
        return []

    def device_of(self, job: JobView) -> BlockDevice | None:
        """The (first) whole disk a job's target lives on, where the snapshot knows it."""
        names = self._job_devices(job)
        return self.snapshot.device(names[0]) if names and self.snapshot else None


Check = Callable[[Context, "Rule"], Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    """One catalogue rule and the function that evaluates it."""

    id: str
    family: str
    title: str
    level: str
    applies: str
    trigger: str
    why: str
    fix: str
    evidence: str
    source: str
    needs: str
    check: Check
    heuristic: bool = False

    @property
    def severity(self) -> Severity:
        return LEVELS[self.level]

    def finding(
        self,
        title: str,
        subject: str = "",
        evidence: Mapping[str, object] | None = None,  # read only, so a dict[str, str] is welcome too
        level: str | None = None,
        why: str | None = None,
        fix: str | None = None,
        quotes: Sequence[Quote] = (),
    ) -> Finding:
        """A triggered Finding carrying this rule's why, fix and source, and the points' figures it quotes
        (`doctor.quotes`). A figure no one can read (nan, inf, 1e+44) is the rule's bug: ValueError, which
        `doctor.engine.evaluate` reports as the rule not evaluated rather than print it."""
        shown = {k: str(v) for k, v in (evidence or {}).items()}
        part = unreadable_part(title, shown, subject)
        if part is not None:
            raise ValueError(f"it made a figure no one can read (its {part!r})")
        return Finding(
            rule_id=self.id,
            family=self.family,
            severity=LEVELS[level or self.level],
            title=title,
            subject=subject,
            evidence=shown,
            why=why or self.why,
            fix=self.fix if fix is None else fix,
            confidence=0.7 if self.heuristic else 1.0,
            source=self.source,
            quotes=tuple(quotes),
        )

    def not_evaluated(self, reason: str, subject: str = "") -> Finding:
        """The rule could not read its input: say so rather than pass."""
        return Finding(
            rule_id=self.id,
            family=self.family,
            severity=Severity.NOT_EVALUATED,
            title=f"not evaluated: {reason}",
            subject=subject,
            source=self.source,
        )


RULES: list[Rule] = []


def rule(
    *,
    id: str,
    family: str,
    title: str,
    level: str,
    applies: str,
    trigger: str,
    why: str,
    fix: str,
    evidence: str,
    source: str,
    needs: str,
    heuristic: bool = False,
) -> Callable[[Check], Check]:
    """Register the decorated check with its catalogue fields.

    `needs` names the Context parts the rule reads, joined by "+" (see
    `Context`): the engine runs a rule only when its call supplies them all.
    The fields are Rule's own, spelled out so a missing or misspelt one is a type error, not a TypeError at import.
    """

    def register(check: Check) -> Check:
        RULES.append(
            Rule(
                id=id,
                family=family,
                title=title,
                level=level,
                applies=applies,
                trigger=trigger,
                why=why,
                fix=fix,
                evidence=evidence,
                source=source,
                needs=needs,
                check=check,
                heuristic=heuristic,
            )
        )
        return check

    return register
