"""One run as every page and command shows it: points, per-second samples, findings, host snapshot, and
every table of the run (`RunReport`).

Loaded once per run (`load_run`) and shared by `run`, `show`, `report` and every format: the workload
tables (`views.tables`), the array and host tables (`views.array_tables`), the headline figures and the
A/B comparisons a run's host-setting axis makes are computed here, so a renderer only lays them out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from iolab.models import Finding, PhaseRecord, PointRecord, Run, Sample
from iolab.views.tables import RunReport, build_report

# The doctor's rule that judges steady-state rounds (iolab.doctor.rules.results).
STEADY_ROUNDS_RULE = "RES-STEADY-STATE"
# The series a run's page reads: fio's per-job bandwidth (tables' BW stddev, the timeline) and each device's
# (the timeline). Latency and IOPS logs stay in the store: an imported archive holds millions of their rows.
SHOWN_METRICS = ("bw", "disk.bw")

if TYPE_CHECKING:
    from iolab.analysis.outliers import OutlierReport
    from iolab.analysis.scaling import ScalingReport
    from iolab.doctor.derived import ArrayView
    from iolab.models.material import HostRow
    from iolab.store.db import Store
    from iolab.views.comparison import Comparison
    from iolab.views.export import ExportedRun
    from iolab.views.history import AcrossRuns
    from iolab.views.timeline import Timeline


@dataclass
class RunView:
    """Everything stored about one run that its pages show, loaded once, and its tables built once."""

    run: Run
    records: list[PointRecord]
    samples: dict[int, list[Sample]]
    findings: list[Finding]
    snapshot: dict | None
    device_bw: dict[int, dict[str, float]]
    tags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what people wrote about the run (`iolab note`)
    hosts: dict[int, list[HostRow]] = field(default_factory=dict)  # each host's part of a multi-host point
    comparisons: list[Comparison] = field(default_factory=list)  # the A/B of a host setting the run made
    phases: list[PhaseRecord] = field(default_factory=list)  # fills, cache drops, commands... as they happened
    report: RunReport = field(init=False)

    def __post_init__(self) -> None:
        from iolab.views.array_tables import array_tables, host_table

        extra = array_tables(self.records, self.device_bw)
        if (hosts := host_table(self.records, self.hosts)) is not None:
            extra.append(hosts)
        facts = [("tags", ", ".join(self.tags))] if self.tags else []
        facts += [("note", note) for note in self.notes]
        facts += phase_facts(self.phases)
        self.report = build_report(
            self.run, self.records, self.samples, steady_rounds(self.findings), self.findings, extra, facts
        )

    def timeline(self) -> Timeline:
        """Per-second bandwidth of fio and each device across the run, with the dips and steps its findings name."""
        from iolab.views.timeline import run_timeline

        return run_timeline(self.run, self.records, self.samples, self.findings)

    def arrays(self) -> list[ArrayFigures]:
        """For array runs: each workload's devices together and alone with outliers marked, and its scaling."""
        from iolab.analysis.outliers import find_outliers
        from iolab.analysis.scaling import scaling_table
        from iolab.doctor.derived import array_views

        figures = []
        for view in array_views(self.records, self.device_bw):
            reports = {
                mode: find_outliers(values, view=mode, metric="bandwidth")
                for mode in ("together", "alone")
                if (values := getattr(view, mode))
            }
            sets = view.device_sets()
            figures.append(ArrayFigures(view, reports, scaling_table(sets, view.alone or None) if sets else None))
        return figures


@dataclass
class ArrayFigures:
    """One array workload as the page draws it: per-device bandwidth with outlier reports, and the scaling."""

    view: ArrayView
    reports: dict[str, OutlierReport]
    scaling: ScalingReport | None


def _axis_comparisons(store: Store, run_id: int) -> list[Comparison]:
    """The A/B comparisons of a run's host-setting axis; the comparison machinery (~30 ms of CPU to load) is
    loaded only for a run that has one."""
    from iolab.views.comparison import axis_comparisons

    return axis_comparisons(store, run_id)


def load_run(store: Store, run_id: int, records: list[PointRecord] | None = None) -> RunView:
    """A run's points (unless given), per-second samples, findings, host snapshot, per-device and per-host
    results, tags, notes and the A/B comparisons of its host-setting axis."""
    from iolab.store.queries import (
        device_bandwidth,
        get_run,
        host_rows,
        run_findings,
        run_phases,
        run_points,
        run_samples,
        run_snapshot,
    )
    from iolab.store.tags import notes_of, tags_of

    records = run_points(store, run_id) if records is None else records
    return RunView(
        run=get_run(store, run_id),
        records=records,
        samples=run_samples(store, [record.id for record in records], SHOWN_METRICS),
        findings=run_findings(store, run_id),
        snapshot=run_snapshot(store, run_id, "before"),
        device_bw=device_bandwidth(store, run_id),
        tags=tags_of(store, [run_id])[run_id],
        notes=notes_of(store, run_id),
        hosts=host_rows(store, run_id),
        comparisons=_axis_comparisons(store, run_id) if any(r.point.host_settings for r in records) else [],
        phases=run_phases(store, run_id),
    )


def phase_facts(phases: list[PhaseRecord]) -> list[tuple[str, str]]:
    """One line per kind of phase and what it acted on, in the order they first happened: how often, how
    long in all, and how it ended ("ok", or each problem with how many times it happened)."""
    groups: dict[tuple[str, str], list[PhaseRecord]] = {}
    for phase in phases:
        groups.setdefault((phase.kind, phase.subject), []).append(phase)
    return [(f"phase: {kind}", _phase_line(subject, done)) for (kind, subject), done in groups.items()]


def _phase_line(subject: str, done: list[PhaseRecord]) -> str:
    """One kind of phase on one subject: how often (before points, when each was), how long, how it ended."""
    times = f"{len(done)} times, " if len(done) > 1 else ""
    before = " (before points)" if len(done) > 1 and all(p.point_id is not None for p in done) else ""
    return f"{subject}{before}: {times}{sum(p.seconds for p in done):.1f} s, {_ending(done)}"


def _ending(done: list[PhaseRecord]) -> str:
    """How a phase ended: "ok", or each problem with how many times it happened."""
    failed = Counter(p.outcome for p in done if not p.ok)
    return "; ".join(f"{outcome} ({n}x)" if n > 1 else outcome for outcome, n in failed.items()) or "ok"


@dataclass
class RunSet:
    """The runs a command prints, as every format needs them: their views (`load_run`), and each point with
    its run's environment for CSV (`views.export`), loaded when a format asks."""

    store: Store
    run_ids: list[int]

    @cached_property
    def views(self) -> list[RunView]:
        return [load_run(self.store, run_id) for run_id in self.run_ids]

    @cached_property
    def across(self) -> AcrossRuns:
        """What the HTML page adds after the runs: their workloads' history and a comparison where they share
        workloads (`views.history.across_runs`); the same page for `report --format html` and `report --html`."""
        from iolab.views.history import across_runs

        return across_runs(self.store, self.run_ids)

    @cached_property
    def exported(self) -> list[ExportedRun]:
        from iolab.views.export import load_export

        return load_export(self.store, self.run_ids)


def steady_rounds(findings: list[Finding]) -> list[str]:
    """How steady-state rounds ended on each target, as the doctor judged them ("/dev/sdb: steady in
    rounds 4-8 ..."): stored as findings of the one rule that judges rounds."""
    return [f"{f.subject}: {f.title}" for f in findings if f.rule_id == STEADY_ROUNDS_RULE]
