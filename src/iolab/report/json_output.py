"""Runs and points as plain JSON-ready dicts, for `--json` and scripts."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING

from iolab.models import Finding, PointRecord, Run
from iolab.models.units import iso_utc
from iolab.models.workload import workload_identity
from iolab.views.side_columns import FIO_CPU_US_PER_IO, point_value

if TYPE_CHECKING:  # and the wording, for the comparison and the history only: `ls --json` loads no analysis
    from iolab.models import Change, Snapshot
    from iolab.views.comparison import Comparison, WorkloadSamples
    from iolab.views.export import ExportedRun
    from iolab.views.export_set import ExportSet
    from iolab.views.history import LocatedChange, SeriesHistory, UnplacedChange
    from iolab.views.host_diff import HostDiff
    from iolab.views.lint import LintView
    from iolab.views.run import RunSet
    from iolab.views.run_list import RunList
    from iolab.views.tables import NotebookTable


def run_dict(run: Run) -> dict:
    return asdict(run)


def record_dict(record: PointRecord) -> dict:
    data = {
        "id": record.id,
        "seq": record.seq,
        "key": record.point.key,
        "name": record.point.name,
        "status": record.status,
        "error": record.error,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "target": asdict(record.point.target),
        "options": record.point.options,
        "host_settings": record.point.host_settings,
        "repeat": record.point.repeat,
        "result": None,
        "side": side_dict(record),
    }
    if record.result is not None:
        result = asdict(record.result)
        for direction in result["directions"].values():
            lat = direction.get("latency")
            if lat:
                lat["percentiles"] = {str(p): v for p, v in lat["percentiles"].items()}
        data["result"] = result
    return data


def side_dict(record: PointRecord) -> dict[str, dict]:
    """The point's side figures by name (`iolab.models.side`), each its value (null when there is none) and
    why it has none; fio's own CPU time per I/O, computed from its result, among them."""
    side = {name: {"value": m.value, "problem": m.problem} for name, m in record.metrics.items()}
    fio_cpu = point_value(record, FIO_CPU_US_PER_IO)
    if fio_cpu is not None:
        side[FIO_CPU_US_PER_IO] = {"value": fio_cpu, "problem": ""}
    return side


def _samples_dict(s: WorkloadSamples) -> dict:
    return {"values": s.values, "failed": s.failed, "geometric_mean": s.figure}


def comparison_json(comparison: Comparison) -> str:
    """Everything the table shows, unrounded, plus the samples it was computed from."""
    from iolab.report.wording import verdict_summary

    rows = []
    for row in comparison.rows:
        v = row.verdict
        rows.append(
            {
                "workload": row.a.workload,
                "name": row.a.name,
                "target": row.a.target,
                "metric": row.a.metric,
                "higher_is_better": v.params.higher_is_better,
                "verdict": v.kind if v.evaluated else "not evaluated",
                "summary": verdict_summary(v),
                "change": v.change,
                "ci_low": v.ci_low,
                "ci_high": v.ci_high,
                "p_welch": v.p_welch,
                "p_mann_whitney": v.p_mwu,
                "p_tost": v.p_tost,
                "repeats_needed": v.repeats_needed,
                "outliers_left_out": {"a": list(v.far_a), "b": list(v.far_b)},  # lone outlier repeats
                "paired_by": "workload" if row.a.workload == row.b.workload else "access pattern",
                "differs": list(row.differs),
                "b_workload": row.b.workload,
                "b_name": row.b.name,
                "b_target": row.b.target,
                "a": _samples_dict(row.a),
                "b": _samples_dict(row.b),
            }
        )
    document = {
        "a": {"label": comparison.label_a, "runs": comparison.runs_a},
        "b": {"label": comparison.label_b, "runs": comparison.runs_b},
        "workloads": rows,
        "unmatched": {
            "a": [{"name": s.name, "target": s.target, "workload": s.workload} for s in comparison.only_a],
            "b": [{"name": s.name, "target": s.target, "workload": s.workload} for s in comparison.only_b],
        },
        "host_changes": None
        if comparison.changes is None
        else [{"subject": c.subject, "what": c.what, "before": c.before, "after": c.after} for c in comparison.changes],
    }
    return json.dumps(document, indent=2) + "\n"


def _judged(h: SeriesHistory) -> dict | None:
    """What the change points were judged against: runs, the noise (COV, correlation of successive runs),
    the cycles taken out or not yet told from a step, the smallest step the runs could show, and the words."""
    from iolab.report.wording import change_points_notes

    judged = h.judged
    if judged is None:
        return None
    noise = judged.noise
    half = judged.runs // 2
    return {
        "runs": judged.runs,
        "too_few_runs": judged.too_few,
        "cov": None if noise is None else noise.sigma,
        "correlation": None if noise is None else noise.phi,
        "cycles": []
        if noise is None
        else [
            {"period_s": c.period_s, "state": c.state, "span_cycles": c.span_cycles, "amplitude": c.amplitude}
            for c in (noise.daily, noise.weekly)
        ],
        "detectable_step": judged.detectable_step(half, judged.runs - half),
        "notes": change_points_notes(judged, h.found),
    }


def _unplaced(change: UnplacedChange) -> dict:
    """An unplaced change: its span of runs, the levels either side, p, the share of its likelihood its likeliest
    place holds within PLACE_RUNS runs, its words, and the host differences read across the span."""
    from iolab.report.wording import unplaced_line

    cp = change.point
    return {
        "first_run": change.run_first,
        "last_run": change.run_last,
        "likeliest_run": change.run_likeliest,
        "first_time": change.time_first,
        "last_time": change.time_last,
        "mean_before": cp.mean_before,
        "mean_after": cp.mean_after,
        "relative_change": cp.relative_change,
        "pvalue": cp.pvalue,
        "place_mass": cp.place_mass,
        "text": unplaced_line(change),
        "host_changes": _host_changes(change.host_changes),
    }


def _host_changes(changes: list[Change] | None) -> list[dict] | None:
    """Host differences as JSON objects; None (unknown: no snapshot) as null."""
    return None if changes is None else [asdict(x) for x in changes]


def _read_between(change: LocatedChange) -> tuple[int, int]:
    """The first and last runs whose snapshots a change point's host differences were read from."""
    return change.window or (change.run_before, change.run_at)


def history_json(histories: list[SeriesHistory]) -> str:
    from iolab.report.wording import change_line

    out = []
    for h in histories:
        s, hp = h.series, h.health
        out.append(
            {
                "host": s.host,
                "target": s.target,
                "workload": s.workload,
                "name": s.name,
                "metric": s.metric,
                "runs": len(s.values),
                "older_runs_left_out": s.older,
                "failed_runs": h.failed_runs,
                "latest": {
                    "run": s.run_ids[-1],
                    "time": s.times[-1],
                    "value": None if math.isnan(s.values[-1]) else s.values[-1],
                },
                "health": None
                if hp is None
                else {
                    "window_s": hp.params.window_s,
                    "cov_target": hp.params.cov_target,
                    "runs": hp.n,
                    "mean": hp.mean,
                    "stddev": hp.stddev,
                    "cov": hp.cov,
                    "state": hp.state,
                },
                "change_points": [
                    {
                        "run_before": c.run_before,
                        "run": c.run_at,
                        "time": c.time,
                        "mean_before": c.point.mean_before,
                        "mean_after": c.point.mean_after,
                        "relative_change": c.point.relative_change,
                        "pvalue": c.point.pvalue,
                        "text": change_line(c),
                        # The runs whose snapshots were read: every two successive ones between them (HOST_WINDOW).
                        "host_changes_between_runs": list(_read_between(c)),
                        "host_changes": _host_changes(c.host_changes),
                    }
                    for c in h.changes
                ],
                # Level changes whose run cannot be told to within PLACE_RUNS runs: somewhere from first_run to
                # last_run (`analysis.history.PLACE_MIN_MASS`); not among the change points.
                "unplaced_changes": [_unplaced(c) for c in h.unplaced],
                "outlier_runs": [asdict(o) for o in h.outliers],
                "change_points_judged": _judged(h),
                "days": [asdict(day) for day in h.days],
                "days_over_target": h.days_over_target,
                "notebook": [
                    {
                        "kind": e.kind,
                        "text": e.text,
                        "runs": list(e.run_ids),
                        "time": e.time,
                        "last_time": e.last_time,
                        "change_point_run": e.change_run,
                        "runs_from_change_point": e.runs_from_change if e.change_run is not None else None,
                    }
                    for e in h.notebook
                ],
            }
        )
    return json.dumps(out, indent=2) + "\n"


def exported_run_dict(exported: ExportedRun) -> dict:
    """A run as `run_dict`, with its start in ISO 8601 (UTC), tags, notes, host facts and each target's facts."""
    return {
        **run_dict(exported.run),
        "started": iso_utc(exported.run.started_at),
        "tags": exported.tags,
        "notes": exported.notes,
        "environment": None if exported.host is None else asdict(exported.host),
        "target_environment": {path: asdict(facts) for path, facts in exported.targets.items()},
    }


def points_json(runs: Sequence[ExportedRun]) -> str:
    """JSON of the runs and all their points, each point carrying its run id and workload identity
    (`exported_run_dict`, `record_dict`)."""
    points = []
    for exported in runs:
        workloads = exported.workloads()
        points += [
            {"run_id": record.run_id, "workload": workloads[record.id], **record_dict(record)}
            for record in exported.records
        ]
    document = {"runs": [exported_run_dict(exported) for exported in runs], "points": points}
    return json.dumps(document, indent=2) + "\n"


def finding_dict(finding: Finding) -> dict:
    return {**asdict(finding), "severity": finding.severity.value}


def table_dict(run_id: int, number: int, table: NotebookTable) -> dict:
    """A table as every other format shows it: its cells as written, and each row's numbers unrounded
    (base units: bytes/s, I/O per second, ns, percent of one core)."""
    return {
        "run_id": run_id,
        "number": number,
        "title": table.title,
        "kind": table.kind,
        "fixed": dict(table.fixed),
        "caption": table.caption,
        "columns": [{"key": c.key, "header": c.header, "unit": c.unit} for c in table.columns],
        "rows": [
            {
                "cells": list(row.cells),
                "direction": row.ddir,
                "points": list(row.point_ids),
                "numbers": {key: None if stats is None else asdict(stats) for key, stats in row.numbers.items()},
                "notes": list(row.notes),
            }
            for row in table.rows
        ],
        "notes": list(table.notes),
    }


def runs_json(runs: RunSet) -> dict:
    """The runs with every point (its run and workload identity), their findings, headline figures and
    every table; `run` is the run itself when there is one (what `show --json` always printed)."""
    views = runs.views
    document: dict = {"run": run_dict(views[0].run)} if len(views) == 1 else {}
    document["runs"] = [run_dict(view.run) for view in views]
    document["points"] = []
    for view in views:
        hosts = view.hosts
        workloads = {r.id: workload_identity(r.point) for r in view.records}
        document["points"] += [
            {
                "run_id": view.run.id,
                "workload": workloads[r.id],
                **record_dict(r),
                **({"hosts": [asdict(h) for h in hosts[r.id]]} if r.id in hosts else {}),
            }
            for r in view.records
        ]
    document["phases"] = [{"run_id": v.run.id, **asdict(p)} for v in views for p in v.phases]
    # the page's own findings too: a RES-INVARIANT of a page that contradicts itself (`views.page_check`)
    document["findings"] = [{"run_id": v.run.id, **finding_dict(f)} for v in views for f in v.report.findings]
    document["headline"] = [{"run_id": v.run.id, **asdict(h)} for v in views for h in v.report.headline]
    document["no_headline"] = {str(v.run.id): v.report.no_headline for v in views if v.report.no_headline}
    document["tables"] = [
        table_dict(v.run.id, number, table) for v in views for number, table in enumerate(v.report.tables, start=1)
    ]
    return document


def render_runs(runs: RunSet, terminal: bool = False, verbose: bool = False) -> str:
    return json.dumps(runs_json(runs), indent=2) + "\n"


def render_comparison(comparison: Comparison, terminal: bool = False, verbose: bool = False) -> str:
    return comparison_json(comparison)


def render_history(histories: list[SeriesHistory], terminal: bool = False, verbose: bool = False) -> str:
    return history_json(histories)


def render_doctor(findings: list[Finding], terminal: bool = False, verbose: bool = False) -> str:
    return _document([finding_dict(f) for f in findings])


def render_export(export: ExportSet, terminal: bool = False, verbose: bool = False) -> str:
    return points_json(export.exported)


def _document(data: object) -> str:
    return json.dumps(data, indent=2) + "\n"


def render_run_list(listed: RunList, terminal: bool = False, verbose: bool = False) -> str:
    """`ls --format json`: each run with its tags, notes and, for an imported run, where it came from."""
    return _document(
        [{**run_dict(r.run), "tags": r.tags, "notes": r.notes, "imported": r.imported} for r in listed.runs]
    )


def render_snapshot(snapshot: Snapshot, terminal: bool = False, verbose: bool = False) -> str:
    return _document(snapshot.to_dict())


def render_lint(lint: LintView, terminal: bool = False, verbose: bool = False) -> str:
    return _document({"findings": [finding_dict(f) for f in lint.findings], "writes": lint.writes, "runs": lint.runs})


def render_host_diff(diff: HostDiff, terminal: bool = False, verbose: bool = False) -> str:
    return _document({"earlier": diff.earlier, "later": diff.later, "changes": [asdict(c) for c in diff.changes]})


RENDERS = {
    "runs": render_runs,
    "comparison": render_comparison,
    "history": render_history,
    "doctor": render_doctor,
    "export": render_export,
    "run_list": render_run_list,
    "snapshot": render_snapshot,
    "lint": render_lint,
    "host_diff": render_host_diff,
}
