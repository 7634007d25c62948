"""An array's scaling table is shown only when it can say something: sets of at least two sizes, judged against
the drives alone. With one size (each drive alone, and no set) there is no scaling to show, and without the drives
alone there is no reference to measure efficiency against: no table, rather than a table of one row or of
figures with nothing under them. Each set's efficiency is its aggregate over its ideal, in percent. Array points made by the runner's own planner; no fio."""

from __future__ import annotations

import pytest

from iolab.doctor.derived import array_views
from iolab.models import DirectionResult, Plan, PointRecord, Result, Target, Workload
from iolab.runner.arrays import array_points
from iolab.views.array_tables import array_tables, scaling_table_of

MB = 1e6


def _records(drives: int, modes: tuple[str, ...]) -> list[PointRecord]:
    plan = Plan(name="a", workloads=[Workload("seqread", {"rw": "read", "bs": "1m"})])
    targets = [Target(f"/dev/nvme{i}n1", "block", f"/dev/nvme{i}n1", 1 << 40) for i in range(drives)]
    records = []
    for i, p in enumerate(array_points(plan, targets, modes, ("doubling",)), start=1):
        rate = 1e9 * (drives if p.target.kind == "group" else 1 + 0.01 * i)
        result = Result({"read": DirectionResult("read", rate, rate / MB, 1000, int(rate), 1000)}, 1, 1, 1, "")
        records.append(PointRecord(i, 1, i, p, "ok", result=result))
    return records


@pytest.mark.parametrize(
    ("drives", "modes", "shown"),
    [
        (4, ("together", "alone", "scaling"), True),
        (2, ("together", "alone"), True),
        (4, ("together", "scaling"), True),  # the scaling sets start from one drive alone
        (4, ("alone",), False),  # every set one drive: nothing scales
        (4, ("together",), False),  # no drive alone: no reference
    ],
)
def test_a_scaling_table_needs_two_sizes_and_the_drives_alone(drives, modes, shown):
    records = _records(drives, modes)
    (view,) = array_views(records, {})
    table = scaling_table_of(view)
    assert (table is not None) is shown
    kinds = [t.kind for t in array_tables(records, {})]
    assert ("scaling" in kinds) is shown
    if table is not None:
        assert len({row.cells[0] for row in table.rows}) >= 2


def test_each_sets_efficiency_is_its_aggregate_over_its_ideal_in_percent():
    (view,) = array_views(_records(4, ("together", "alone", "scaling")), {})
    table = scaling_table_of(view)
    assert table is not None
    keys = [c.key for c in table.columns]
    assert table.columns[keys.index("efficiency")].unit == "%"
    for row in table.rows:
        aggregate, ideal = row.numbers["aggregate_bw"].mean, row.numbers["ideal_bw"].mean  # type: ignore[union-attr]
        assert row.numbers["efficiency"].mean == pytest.approx(100 * aggregate / ideal)  # type: ignore[union-attr]
        assert row.cells[keys.index("efficiency")] == f"{100 * aggregate / ideal:.0f}%"
