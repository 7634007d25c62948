"""Two groups of runs side by side: per workload, is B faster, slower, the same, or undecided?

The statistics are `analysis.compare.compare_samples`; this module only
gathers the samples (every repeat of every run of a side is one sample of
the workload's primary metric), matches workloads by identity, and adds
what changed on the host between the sides, since a verdict without its
cause is half an answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from iolab.analysis.compare import CompareParams, Verdict, compare_samples, geometric_mean
from iolab.models import Change, primary_metric
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

    @property
    def figure(self) -> float | None:
        """The side's one figure: the geometric mean of its repeats, so that B/A of two sides' figures is the
        verdict's change (`analysis.compare`). None without a positive value."""
        return geometric_mean(self.values)


@dataclass
class ComparedWorkload:
    a: WorkloadSamples
    b: WorkloadSamples
    verdict: Verdict


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


def side_samples(store: Store, run_ids: list[int]) -> dict[str, WorkloadSamples]:
    """Workload identity -> samples of its primary metric over every repeat in `run_ids`."""
    out: dict[str, WorkloadSamples] = {}
    for run_id in run_ids:
        for record in run_points(store, run_id):
            point = record.point
            identity = workload_identity(point)
            samples = out.get(identity)
            if samples is None:
                samples = out[identity] = WorkloadSamples(
                    identity, point.name, point.target.path, metric_for(point.options)
                )
            if record.status == "ok" and record.result is not None:
                samples.values.append(primary_metric(record.result, samples.metric))
            else:
                samples.failed += 1
    return out


def compare_runs(
    store: Store, label_a: str, runs_a: list[int], label_b: str, runs_b: list[int], params: CompareParams | None = None
) -> Comparison:
    """Compare every workload present on both sides; list the others as unmatched."""
    base = params or CompareParams()
    side_a, side_b = side_samples(store, runs_a), side_samples(store, runs_b)
    rows = []
    for identity, a in side_a.items():
        b = side_b.get(identity)
        if b is None:
            continue
        verdict = compare_samples(a.values, b.values, replace(base, higher_is_better=higher_is_better(a.metric)))
        rows.append(ComparedWorkload(a, b, verdict))
    only_a = [s for k, s in side_a.items() if k not in side_b]
    only_b = [s for k, s in side_b.items() if k not in side_a]
    # The state the A side ended in against the state the B side started in.
    changes = host_changes(store, runs_a[-1], runs_b[0])
    return Comparison(label_a, label_b, runs_a, runs_b, rows, only_a, only_b, changes)
