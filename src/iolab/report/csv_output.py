"""Every point of one or more runs as CSV or JSON, for spreadsheets, pandas and scripts.

The notebook tables summarise; these files keep each point and direction
apart, with the store's numbers unrounded (floats written as Python's
shortest round-tripping repr), so anything the tables show can be
recomputed from them.

CSV: one row per point and direction (a failed or pending point gets one
row with the direction and metrics empty and its error filled in). Each
fio option gets its own `fio_<option>` column, so a sweep can be pivoted
on `fio_iodepth` without parsing; the prefix keeps fio's `size` or `name`
apart from iolab's own columns.

Each row also carries its run (start, label, status, host, tags, notes),
the workload's identity (equal across runs: the column to follow a series
on), the target as the host snapshot saw it and the host's kernel, OS, CPU
and fio (`views.export`), so months of scheduled runs can be filtered by
date, tag or kernel in one file. Times are ISO 8601 in UTC, to the second.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

from iolab.models import PointRecord, result_fields
from iolab.models.units import iso_utc
from iolab.views.export import ExportedRun, HostFacts, TargetFacts
from iolab.views.side_columns import FIO_CPU_US_PER_IO, point_value
from iolab.views.tables import PARAMETER_ORDER

if TYPE_CHECKING:
    from iolab.models import Finding
    from iolab.views.comparison import Comparison
    from iolab.views.export_set import ExportSet
    from iolab.views.host_diff import HostDiff
    from iolab.views.run import RunSet
    from iolab.views.run_list import RunList

RUN_COLUMNS = ("run_id", "run_started", "run_label", "run_status", "host", "tags", "notes")
POINT_COLUMNS = (
    "point_id",
    "seq",
    "name",
    "repeat",
    "key",
    "workload",
    "status",
    "point_started",
    "point_finished",
    "target",
    "target_kind",
    "target_size_bytes",
)
ENVIRONMENT_COLUMNS = (
    "device",
    "device_model",
    "device_firmware",
    "scheduler",
    "wbt_lat_usec",
    "fs_type",
    "mount_point",
    "mount_options",
    "fs_used_percent",
    "kernel",
    "os",
    "cpu_model",
    "cpus_online",
    "clocksource",
    "fio",  # fio's version ("fio-3.33"); not fio_version: `fio_` starts the option columns
    "iolab_version",
)
NOTE_SEPARATOR = " | "
# A direction's own columns (its key `ddir` and figures) are those of `models.result_fields`; these follow them.
POINT_RESULT_COLUMNS = ("usr_cpu", "sys_cpu", "jobs", "error")
OPTION_PREFIX = "fio_"
# Side figures (`iolab.models.side`) get a column each, `side_<name>`, where some point has one; why a point
# has none of a figure goes into one `side_notes` cell ("name: why; ..."), keeping the figures' columns numeric.
SIDE_PREFIX = "side_"
SIDE_NOTES = "side_notes"


def result_columns() -> list[str]:
    """The CSV columns of a direction's stored fields (`models.result_fields`), the direction first."""
    return [column for field in result_fields.RESULT_FIELDS for column in field.csv_columns()]


def _run_fields(exported: ExportedRun) -> dict[str, object]:
    run, host = exported.run, exported.host or HostFacts()
    return {
        "run_id": run.id,
        "run_started": iso_utc(run.started_at),
        "run_label": run.label,
        "run_status": run.status,
        "host": run.host,
        "tags": ";".join(exported.tags),
        "notes": NOTE_SEPARATOR.join(exported.notes),
        "kernel": host.kernel,
        "os": host.os_name,
        "cpu_model": host.cpu_model,
        "cpus_online": host.cpus_online,
        "clocksource": host.clocksource,
        "fio": run.fio_version,
        "iolab_version": run.iolab_version,
    }


def _target_fields(facts: TargetFacts) -> dict[str, object]:
    return {
        "device": facts.device,
        "device_model": facts.model,
        "device_firmware": facts.firmware,
        "scheduler": facts.scheduler,
        "wbt_lat_usec": facts.wbt_lat_usec,
        "fs_type": facts.fs_type,
        "mount_point": facts.mount_point,
        "mount_options": ",".join(facts.mount_options),
        "fs_used_percent": facts.fs_used_percent,
    }


def point_rows(runs: Sequence[ExportedRun]) -> list[dict[str, object]]:
    """One dict per point and direction, keyed by the CSV columns (missing keys are empty cells)."""
    rows: list[dict[str, object]] = []
    for exported in runs:
        run_fields = _run_fields(exported)
        workloads = exported.workloads()
        for record in exported.records:
            context = {**run_fields, **_target_fields(exported.target(record.point.target.path))}
            rows += _record_rows(record, {**context, "workload": workloads[record.id]})
    return rows


def _record_rows(record: PointRecord, context: dict[str, object]) -> list[dict[str, object]]:
    """The rows of one point: one per direction, or one without figures when it has none."""
    point = record.point
    base: dict[str, object] = {
        **context,
        "point_id": record.id,
        "seq": record.seq,
        "name": point.name,
        "repeat": point.repeat,
        "key": point.key,
        "status": record.status,
        "point_started": iso_utc(record.started_at),
        "point_finished": iso_utc(record.finished_at),
        "target": point.target.path,
        "target_kind": point.target.kind,
        "target_size_bytes": point.target.size_bytes,
        "error": record.error,
    }
    base.update({OPTION_PREFIX + k: v for k, v in point.options.items()})
    base.update(_side_fields(record))
    result = record.result
    if result is None or not result.directions:
        return [base]
    base.update({"usr_cpu": result.usr_cpu, "sys_cpu": result.sys_cpu, "jobs": result.jobs})
    fields = result_fields.RESULT_FIELDS
    return [{**base, **{k: v for f in fields for k, v in f.cells(d).items()}} for d in result.directions.values()]


def _side_fields(record: PointRecord) -> dict[str, object]:
    fields: dict[str, object] = {SIDE_PREFIX + n: m.value for n, m in record.metrics.items() if m.value is not None}
    if (fio_cpu := point_value(record, FIO_CPU_US_PER_IO)) is not None:
        fields[SIDE_PREFIX + FIO_CPU_US_PER_IO] = fio_cpu
    notes = [f"{name}: {m.problem}" for name, m in record.metrics.items() if m.value is None and m.problem]
    if notes:
        fields[SIDE_NOTES] = "; ".join(notes)
    return fields


def _side_names(records: Sequence[PointRecord]) -> list[str]:
    """The side figures some of `records` have a value for: fio's CPU per I/O first, then the stored ones."""
    stored = sorted({name for r in records for name, m in r.metrics.items() if m.value is not None})
    computed = [FIO_CPU_US_PER_IO] if any(point_value(r, FIO_CPU_US_PER_IO) is not None for r in records) else []
    return computed + stored


def _option_columns(records: Sequence[PointRecord]) -> list[str]:
    keys = {k for r in records for k in r.point.options}
    order = {k: i for i, k in enumerate(PARAMETER_ORDER)}
    return [OPTION_PREFIX + k for k in sorted(keys, key=lambda k: (order.get(k, len(order)), k))]


def points_csv(runs: Sequence[ExportedRun]) -> str:
    """CSV text of every point and direction of `runs`."""
    records = [record for exported in runs for record in exported.records]
    side = [SIDE_PREFIX + name for name in _side_names(records)] + [SIDE_NOTES]
    columns = [
        *RUN_COLUMNS,
        *POINT_COLUMNS,
        *result_columns(),
        *POINT_RESULT_COLUMNS,
        *side,
        *ENVIRONMENT_COLUMNS,
        *_option_columns(records),
    ]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(point_rows(runs))
    return buffer.getvalue()


def render_runs(runs: RunSet, terminal: bool = False, verbose: bool = False) -> str:
    """A run's every point and direction: what its tables summarise, unrounded, for a spreadsheet."""
    return points_csv(runs.exported)


def render_export(export: ExportSet, terminal: bool = False, verbose: bool = False) -> str:
    return points_csv(export.exported)


def _rows_csv(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def render_comparison(comparison: Comparison, terminal: bool = False, verbose: bool = False) -> str:
    """One row per workload and metric: the verdict table's cells, as the other formats write them."""
    from iolab.report.wording import HEADERS, verdict_cells

    return _rows_csv(HEADERS, [verdict_cells(row) for row in comparison.rows])


def render_doctor(findings: list[Finding], terminal: bool = False, verbose: bool = False) -> str:
    """One row per finding, its evidence as key=value pairs separated by `; `."""
    header = ["rule_id", "family", "severity", "subject", "title", "evidence", "fix", "confidence"]
    rows = [
        [
            f.rule_id,
            f.family,
            f.severity.value,
            f.subject,
            f.title,
            "; ".join(f"{k}={v}" for k, v in f.evidence.items()),
            f.fix,
            repr(f.confidence),
        ]
        for f in findings
    ]
    return _rows_csv(header, rows)


def render_run_list(listed: RunList, terminal: bool = False, verbose: bool = False) -> str:
    header = ["run_id", "started_at", "finished_at", "status", "label", "host", "targets", "points_planned"]
    header += ["points_done", "points_failed", "tags", "notes", "imported"]
    rows = [
        [
            r.run.id,
            iso_utc(r.run.started_at),
            iso_utc(r.run.finished_at) if r.run.finished_at is not None else "",
            r.run.status,
            r.run.label,
            r.run.host,
            " ".join(r.run.targets),
            r.run.points_planned,
            r.run.points_done,
            r.run.points_failed,
            " ".join(r.tags),
            " | ".join(r.notes),
            "yes" if r.imported else "",
        ]
        for r in listed.runs
    ]
    return _rows_csv(header, rows)


def render_host_diff(diff: HostDiff, terminal: bool = False, verbose: bool = False) -> str:
    rows = [[diff.earlier, diff.later, c.subject, c.what, c.before, c.after] for c in diff.changes]
    return _rows_csv(["earlier_run", "later_run", "subject", "what", "before", "after"], rows)


RENDERS = {
    "runs": render_runs,
    "export": render_export,
    "comparison": render_comparison,
    "doctor": render_doctor,
    "run_list": render_run_list,
    "host_diff": render_host_diff,
}
