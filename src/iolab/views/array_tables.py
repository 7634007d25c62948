"""A run's tables beyond its workloads: an array's devices together and alone, its scaling with the number
of devices, and each host's share of a multi-host point.

Their columns are declared in `views.columns` like every other figure, and the tables sit in the run's
report (`RunReport.tables`) beside the workload tables, so `show`, `run`, `report` and every format print
the same ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from iolab.models import PointRecord, units
from iolab.models.array_names import natural_key
from iolab.views.columns import DEVICE, HOST, SCALING, DeviceRow, HostShare, SetRow, figures_of, source_cells
from iolab.views.tables import Column, NotebookTable, Row

if TYPE_CHECKING:
    from iolab.doctor.derived import ArrayView
    from iolab.models.material import HostRow

SCALING_CAPTION = "efficiency = aggregate / the same devices alone, summed"
# Above this efficiency a set's row says why it can be (`_above_ideal`): 5% above is beyond the scatter of
# a device's alone run in the suite's and the bench's arrays.
ABOVE_IDEAL = 1.05
HOST_CAPTION = "runtime: when the host's jobs were done (first-done against last-done)"


def _table(
    kind: str, title: str, sources: Sequence[object], caption: str = "", notes: Sequence[tuple[str, ...]] = ()
) -> NotebookTable:
    figures = figures_of(kind)
    rows = []
    for i, source in enumerate(sources):
        cells, numbers = source_cells(figures, source)
        rows.append(Row(tuple(cells), numbers, None, 1, (), notes[i] if notes else ()))
    columns = tuple(Column(f.key, f.title_of_kind(), f.numeric, f.unit) for f in figures)
    return NotebookTable(title, None, (), columns, tuple(rows), kind, caption)


def device_table(view: ArrayView) -> NotebookTable:
    """Per-device bandwidth of an array workload, run together and alone side by side."""
    devices = sorted(set(view.together) | set(view.alone), key=natural_key)
    rows = [DeviceRow(d, view.together.get(d), view.alone.get(d)) for d in devices]
    return _table(DEVICE, f"Per device · {view.workload}", rows)


def scaling_table_of(view: ArrayView) -> NotebookTable | None:
    """Aggregate bandwidth against device count, with efficiency against the same devices alone: every set
    run together (largest aggregate first within a size) and the best drive alone; each set named as its
    point is (`x28`, `without-nvme3n1`), so sets of one size can be told apart. None with one size only."""
    from iolab.analysis.scaling import scaling_table

    report = scaling_table(view.device_sets(), view.alone or None)
    if not report.evaluated or len({row.n for row in report.rows}) < 2:
        return None
    rows = [row for row in report.rows if row.n > 1 or row is report.rows[0]]
    sets = [SetRow(r.n, r.aggregate, r.ideal, r.efficiency, view.label(r.devices)) for r in rows]
    return _table(SCALING, f"Scaling · {view.workload}", sets, SCALING_CAPTION, [_above_ideal(s) for s in sets])


def _above_ideal(row: SetRow) -> tuple[str, ...]:
    """Why a set moved more together than its devices did alone, which adding them cannot give."""
    if row.efficiency <= ABOVE_IDEAL:
        return ()
    return (
        f"{row.label}: {units.percent(100 * row.efficiency)} of its devices alone: more together than their sum "
        "alone, which adding them cannot give; their alone runs read low (a drive slower when it ran alone, or "
        "its own run-to-run noise), or a shared cache or controller serves them better together",
    )


def array_tables(records: Sequence[PointRecord], device_bw: Mapping[int, Mapping[str, float]]) -> list[NotebookTable]:
    """For an array run: each workload's per-device table and its scaling table."""
    from iolab.doctor.derived import array_views

    tables = []
    for view in array_views(list(records), {k: dict(v) for k, v in device_bw.items()}):
        if view.together or view.alone:
            tables.append(device_table(view))
        if (scaling := scaling_table_of(view)) is not None:
            tables.append(scaling)
    return tables


def host_table(records: Sequence[PointRecord], hosts: Mapping[int, Sequence[HostRow]]) -> NotebookTable | None:
    """Each host's share of each multi-host point: status, throughput, latency and when it was done."""
    shares = [
        HostShare(
            record.point.name,
            row.host,
            row.status if row.status == "ok" else f"{row.status}: {row.error}",
            row.bw_bytes,
            row.iops,
            row.lat_mean_ns,
            row.p99_ns,
            row.runtime_ms,
        )
        for record in records
        for row in hosts.get(record.id, [])
    ]
    return _table(HOST, "Per host", shares, HOST_CAPTION) if shares else None
