"""Two groups of runs side by side: per workload, is B faster, slower, the same, or undecided?

The statistics are `analysis.compare.compare_samples`; this module only
gathers the samples (every repeat of every run of a side is one sample of
the workload's primary metric), matches workloads by identity, and adds
what changed on the host between the sides, since a verdict without its
cause is half an answer.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace

from iolab.analysis.compare import CompareParams, Verdict, compare_samples, side_figure
from iolab.models import Change, Point, primary_metric
from iolab.models.job_options import JobOptions
from iolab.models.option_values import canonical
from iolab.models.workload import higher_is_better, metric_for, workload_identity
from iolab.store.db import Store
from iolab.store.host_changes import host_changes
from iolab.store.queries import run_points


@dataclass
class WorkloadSamples:
    """Every finished repeat of one workload across the runs of one side."""

    workload: str  # identity
    name: str
    target: str
    metric: str
    values: list[float] = field(default_factory=list)
    failed: int = 0  # repeats that failed or never ran: left out, a failed run is not a slow run
    job: JobOptions = field(default_factory=JobOptions)  # the options its first point ran with

    @property
    def pattern(self) -> str:
        """What it asks of the storage, whatever the method: "sequential read", "random write", "mixed"."""
        kind = "read" if not self.job.writes else ("write" if not self.job.reads else "read/write")
        return f"{'sequential' if self.job.sequential else 'random'} {kind}"

    @property
    def figure(self) -> float | None:
        """The side's one figure: the geometric mean of the repeats its verdict rests on (lone outlier repeats
        left out, `analysis.compare.kept_values`), so that B/A of two sides' figures is the verdict's change.
        None without a positive value."""
        return side_figure(self.values)


@dataclass
class ComparedWorkload:
    a: WorkloadSamples
    b: WorkloadSamples
    verdict: Verdict
    # Where A and B are not one workload but the same question asked two ways (seed 003: psync QD1 against
    # libaio QD32), paired by access pattern: what differs, each "option: A's -> B's". Empty: one workload.
    differs: tuple[str, ...] = ()


@dataclass
class Comparison:
    label_a: str
    label_b: str
    runs_a: list[int]
    runs_b: list[int]
    rows: list[ComparedWorkload]
    only_a: list[WorkloadSamples]
    only_b: list[WorkloadSamples]
    changes: list[Change] | None  # None when a snapshot is missing

    def regressions(self, threshold: float) -> list[ComparedWorkload]:
        """Workloads judged slower by more than `threshold` (0.05 = 5%): the gate of --fail-on-regression.

        "More than" is judged on the point estimate of the change, and only
        where the verdict already says slower, so noise can never trip it.
        """
        out = []
        for row in self.rows:
            v = row.verdict
            if v.kind != "slower" or v.change is None:
                continue
            loss = -v.change if higher_is_better(row.a.metric) else v.change
            if loss > threshold:
                out.append(row)
        return out


def side_samples(
    store: Store, run_ids: list[int], within: Within | None = None, axes: frozenset[str] = frozenset()
) -> dict[str, WorkloadSamples]:
    """Workload identity -> samples of its primary metric over every repeat in `run_ids` (only the points
    `within` holds for; identities without `axes` when some are compared)."""
    out: dict[str, WorkloadSamples] = {}
    for run_id in run_ids:
        for record in run_points(store, run_id):
            point = record.point
            if within is not None and not within.holds(point):
                continue
            identity = _axis_identity(point, axes) if axes else workload_identity(point)
            samples = out.get(identity)
            if samples is None:
                samples = out[identity] = WorkloadSamples(
                    identity, point.name, point.target.path, metric_for(point.options), job=point.job
                )
            if record.status == "ok" and record.result is not None:
                samples.values.append(primary_metric(record.result, samples.metric))
            else:
                samples.failed += 1
    return out


@dataclass(frozen=True)
class Within:
    """The points of a side that run with one value of one axis: a host setting (`scheduler=none`) or a
    fio option (`iodepth=32`). Two sides of one run that differ in it are an A/B inside that run."""

    key: str
    value: str

    def holds(self, point: Point) -> bool:
        return point.host_settings.get(self.key, point.job.given(self.key)) == self.value

    def __str__(self) -> str:
        return f"{self.key}={self.value}"


# RUNS:KEY=VALUE: the points of RUNS with that value (a tag's or a time window's colon has no "=" after it).
_WITHIN = re.compile(r"^(?P<runs>.+):(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)=(?P<value>[^=]+)$")


def split_group(spec: str) -> tuple[str, Within | None]:
    """A group of runs (A or B) as written on the command line: its runs, and the axis value its points are chosen by."""
    match = _WITHIN.match(spec.strip())
    if match is None:
        return spec, None
    return match["runs"], Within(match["key"], match["value"].strip())


def _axis_identity(point: Point, axes: frozenset[str]) -> str:
    """The point's workload with the compared axes taken out (its name too, which holds their tokens
    such as `sched_none`): the two sides of an axis are one workload."""
    identity = {
        "options": {k: v for k, v in sorted(point.options.items()) if k not in axes},
        "host_settings": {k: v for k, v in sorted(point.host_settings.items()) if k not in axes},
        "filename": point.target.identity_filename,
        "kind": point.target.kind,
        "size": point.target.size_bytes,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


def compare_runs(
    store: Store,
    label_a: str,
    runs_a: list[int],
    label_b: str,
    runs_b: list[int],
    params: CompareParams | None = None,
    within: tuple[Within | None, Within | None] = (None, None),
) -> Comparison:
    """Compare every workload present on both sides; list the others as unmatched.

    `within` chooses each side's points by one axis value; the workloads are then matched without the
    axes chosen by, so `RUN:scheduler=none` against `RUN:scheduler=mq-deadline` compares each workload
    under the two schedulers, with the same statistics as two runs.
    """
    base = params or CompareParams()
    axes = frozenset(w.key for w in within if w is not None)
    side_a = side_samples(store, runs_a, within[0], axes)
    side_b = side_samples(store, runs_b, within[1], axes)
    pairs, only_a, only_b = _paired(side_a, side_b)
    rows = [
        ComparedWorkload(
            a, b, compare_samples(a.values, b.values, replace(base, higher_is_better=higher_is_better(a.metric))), how
        )
        for a, b, how in pairs
    ]
    # The state the A side ended in against the state the B side started in.
    # inside one run nothing changed between the sides but the axis they are chosen by
    changes = [] if runs_a == runs_b else host_changes(store, runs_a[-1], runs_b[0])
    return Comparison(label_a, label_b, runs_a, runs_b, rows, only_a, only_b, changes)


_Pair = tuple[WorkloadSamples, WorkloadSamples, tuple[str, ...]]


def _paired(
    side_a: dict[str, WorkloadSamples], side_b: dict[str, WorkloadSamples]
) -> tuple[list[_Pair], list[WorkloadSamples], list[WorkloadSamples]]:
    """(pairs, only on A, only on B): workloads matched by identity first, then the rest by access pattern
    (`pattern_pairs`), each pair with what B does differently."""
    pairs: list[_Pair] = [(a, side_b[identity], ()) for identity, a in side_a.items() if identity in side_b]
    only_a, only_b = _unmatched(side_a, side_b), _unmatched(side_b, side_a)
    by_pattern = pattern_pairs(only_a, only_b)
    paired = {id(s) for a, b, _ in by_pattern for s in (a, b)}
    return pairs + by_pattern, _left(only_a, paired), _left(only_b, paired)


def _unmatched(side: dict[str, WorkloadSamples], other: dict[str, WorkloadSamples]) -> list[WorkloadSamples]:
    """A side's workloads with no workload of the same identity on the other side."""
    return [s for k, s in side.items() if k not in other]


def _left(only: list[WorkloadSamples], paired: set[int]) -> list[WorkloadSamples]:
    """The unmatched workloads that no access-pattern pair took."""
    return [s for s in only if id(s) not in paired]


def pattern_pairs(
    only_a: list[WorkloadSamples], only_b: list[WorkloadSamples]
) -> list[tuple[WorkloadSamples, WorkloadSamples, tuple[str, ...]]]:
    """Workloads of A and B that are no one workload but ask the same question of the storage: the one
    workload of each side with an access pattern and block size (then an access pattern alone) that no
    other unmatched workload of either side has, measured in the same metric. Comparing a method change
    (engine, depth, file size) is the question of seed 003; an ambiguous pattern is left unpaired."""
    pairs: list[tuple[WorkloadSamples, WorkloadSamples, tuple[str, ...]]] = []
    left_a, left_b = list(only_a), list(only_b)
    for key in (lambda s: (s.pattern, s.job.bs, s.metric), lambda s: (s.pattern, s.metric)):
        groups_a: dict[object, list[WorkloadSamples]] = {}
        groups_b: dict[object, list[WorkloadSamples]] = {}
        for s in left_a:
            groups_a.setdefault(key(s), []).append(s)
        for s in left_b:
            groups_b.setdefault(key(s), []).append(s)
        for k, (a, *more_a) in groups_a.items():
            found = groups_b.get(k, [])
            if more_a or len(found) != 1:
                continue
            pairs.append((a, found[0], _differences(a, found[0])))
            left_a.remove(a)
            left_b.remove(found[0])
    return pairs


def _differences(a: WorkloadSamples, b: WorkloadSamples) -> tuple[str, ...]:
    """What A's workload and B's differ in, "option: A's -> B's" (fio's default where one side is silent),
    the target first when it differs; the name is not a difference of method."""
    out = [f"target: {a.target} -> {b.target}"] if a.target != b.target else []
    for name in sorted({canonical(n) for n in (*a.job, *b.job)} - {"name", "description"}):
        mine, theirs = a.job.text(name), b.job.text(name)
        if mine != theirs:
            out.append(
                f"{name}: {mine if mine is not None else '(default)'} -> {theirs if theirs is not None else '(default)'}"
            )
    return tuple(out)


def axis_comparisons(store: Store, run_id: int) -> list[Comparison]:
    """A run's A/B inside itself: for each host setting its points take more than one value of (a plan's
    `scheduler = ["none", "mq-deadline"]`), the first value against each other, as `iolab compare
    RUN:scheduler=none RUN:scheduler=mq-deadline` says it."""
    values: dict[str, list[str]] = {}
    for record in run_points(store, run_id):
        for key, value in record.point.host_settings.items():
            if value not in values.setdefault(key, []):
                values[key].append(value)
    found = []
    for key, seen in values.items():
        for other in seen[1:]:
            a, b = Within(key, seen[0]), Within(key, other)
            comparison = compare_runs(
                store, f"run {run_id}:{a}", [run_id], f"run {run_id}:{b}", [run_id], within=(a, b)
            )
            if comparison.rows:
                found.append(comparison)
    return found
