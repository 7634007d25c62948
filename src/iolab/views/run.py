"""One run as its pages show it: points, per-second samples, findings, host snapshot, tables and arrays.

Loaded once per run (`load_run`) and shared by the HTML page, the terminal
and Markdown tables; the notebook tables and the array views are computed
here so a renderer only lays them out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from iolab.models import Finding, PointRecord, Run, Sample
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
    from iolab.store.db import Store
    from iolab.views.timeline import Timeline


@dataclass
class RunView:
    """Everything stored about one run that the page shows, loaded once."""

    run: Run
    records: list[PointRecord]
    samples: dict[int, list[Sample]]
    findings: list[Finding]
    snapshot: dict | None
    device_bw: dict[int, dict[str, float]]
    tags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what people wrote about the run (`iolab note`)
    report: RunReport = field(init=False)

    def __post_init__(self) -> None:
        self.report = build_report(self.run, self.records, self.samples, steady_rounds(self.findings), self.findings)

    def timeline(self) -> Timeline:
        """Per-second bandwidth of fio and each device across the run, with the dips found in it."""
        from iolab.views.timeline import run_timeline

        return run_timeline(self.run, self.records, self.samples)

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


def load_run(store: Store, run_id: int) -> RunView:
    """A run's points, per-second samples, findings, host snapshot and per-device results."""
    from iolab.store.queries import device_bandwidth, get_run, run_findings, run_points, run_samples, run_snapshot
    from iolab.store.tags import notes_of, tags_of

    records = run_points(store, run_id)
    return RunView(
        run=get_run(store, run_id),
        records=records,
        samples=run_samples(store, [record.id for record in records], SHOWN_METRICS),
        findings=run_findings(store, run_id),
        snapshot=run_snapshot(store, run_id, "before"),
        device_bw=device_bandwidth(store, run_id),
        tags=tags_of(store, [run_id])[run_id],
        notes=notes_of(store, run_id),
    )


def run_report(store: Store, run: Run, records: list[PointRecord]) -> RunReport:
    """A run's notebook page, with each point's stored per-second samples for BW stddev."""
    from iolab.store.queries import run_findings, run_samples

    samples = run_samples(store, [record.id for record in records], SHOWN_METRICS)
    findings = run_findings(store, run.id)
    return build_report(run, records, samples, steady_rounds(findings), findings)


def steady_rounds(findings: list[Finding]) -> list[str]:
    """How steady-state rounds ended on each target, as the doctor judged them ("/dev/sdb: steady in
    rounds 4-8 ..."): stored as findings of the one rule that judges rounds."""
    return [f"{f.subject}: {f.title}" for f in findings if f.rule_id == STEADY_ROUNDS_RULE]
