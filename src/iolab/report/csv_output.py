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
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from iolab.models import PERCENTILES, DirectionResult, PointRecord
from iolab.views.tables import PARAMETER_ORDER

POINT_COLUMNS = ("run_id", "point_id", "seq", "name", "repeat", "key", "status", "target", "ddir")
PERCENTILE_COLUMNS = tuple(f"lat_p{p:g}_ns" for p in PERCENTILES)
METRIC_COLUMNS = (
    "bw_bytes",
    "iops",
    "total_ios",
    "io_bytes",
    "runtime_ms",
    "lat_kind",
    "lat_count",
    "lat_mean_ns",
    "lat_stddev_ns",
    "lat_min_ns",
    "lat_max_ns",
    *PERCENTILE_COLUMNS,
    "usr_cpu",
    "sys_cpu",
    "jobs",
    "error",
)
OPTION_PREFIX = "fio_"


def _direction_fields(d: DirectionResult) -> dict[str, object]:
    fields: dict[str, object] = {
        "ddir": d.ddir,
        "bw_bytes": d.bw_bytes,
        "iops": d.iops,
        "total_ios": d.total_ios,
        "io_bytes": d.io_bytes,
        "runtime_ms": d.runtime_ms,
    }
    if d.latency is not None:
        lat = d.latency
        fields.update(
            {
                "lat_kind": lat.kind,
                "lat_count": lat.count,
                "lat_mean_ns": lat.mean_ns,
                "lat_stddev_ns": lat.stddev_ns,
                "lat_min_ns": lat.min_ns,
                "lat_max_ns": lat.max_ns,
            }
        )
        fields.update(
            {f"lat_p{p:g}_ns": v for p, v in lat.percentiles.items() if f"lat_p{p:g}_ns" in PERCENTILE_COLUMNS}
        )
    return fields


def point_rows(records: Sequence[PointRecord]) -> list[dict[str, object]]:
    """One dict per point and direction, keyed by the CSV columns (missing keys are empty cells)."""
    rows: list[dict[str, object]] = []
    for record in records:
        point = record.point
        base: dict[str, object] = {
            "run_id": record.run_id,
            "point_id": record.id,
            "seq": record.seq,
            "name": point.name,
            "repeat": point.repeat,
            "key": point.key,
            "status": record.status,
            "target": point.target.path,
            "error": record.error,
        }
        base.update({OPTION_PREFIX + k: v for k, v in point.options.items()})
        result = record.result
        if result is None or not result.directions:
            rows.append(base)
            continue
        base.update({"usr_cpu": result.usr_cpu, "sys_cpu": result.sys_cpu, "jobs": result.jobs})
        rows.extend({**base, **_direction_fields(d)} for d in result.directions.values())
    return rows


def _option_columns(records: Sequence[PointRecord]) -> list[str]:
    keys = {k for r in records for k in r.point.options}
    order = {k: i for i, k in enumerate(PARAMETER_ORDER)}
    return [OPTION_PREFIX + k for k in sorted(keys, key=lambda k: (order.get(k, len(order)), k))]


def points_csv(records: Sequence[PointRecord]) -> str:
    """CSV text of every point and direction of `records` (which may span runs)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(
        buffer, fieldnames=[*POINT_COLUMNS, *METRIC_COLUMNS, *_option_columns(records)], restval="", lineterminator="\n"
    )
    writer.writeheader()
    writer.writerows(point_rows(records))
    return buffer.getvalue()
