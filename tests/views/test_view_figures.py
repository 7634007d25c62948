"""Figures a user reads off a view, at the cases the generated pages do not reach (issue 41 item 8): an array's
scaling rows with two drives, a series' health at its latest run, its exported `healthy`, and a compare side
with a failed repeat. Runs stored with the Store's own writes, or models built here; no fio."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from iolab.cli import app
from iolab.models import DirectionResult, PointRecord, Result, Target
from iolab.models.workload import Series
from iolab.store.db import open_store
from iolab.store.series import load_series
from iolab.views.history import latest_health
from iolab.views.series_metrics import series_metrics
from tests.store.test_series import MB, SEQ_READ, _bw, _run

HOUR = 3600.0


def _array_view(drives: int, alone: float, together: dict[str, float]):  # type: ignore[no-untyped-def]
    from iolab.doctor.derived import array_views
    from iolab.models import Plan, Workload
    from iolab.runner.arrays import array_points

    plan = Plan(name="a", workloads=[Workload("seqread", {"rw": "read", "bs": "1m"})])
    targets = [Target(f"/dev/nvme{i}n1", "block", f"/dev/nvme{i}n1", 1 << 40) for i in range(drives)]
    records = []
    for i, p in enumerate(array_points(plan, targets, ("together", "alone", "scaling"), ("doubling",)), start=1):
        rate = together.get(p.name, alone * (1 + 0.01 * i) if p.target.kind != "group" else alone * drives)
        result = Result({"read": DirectionResult("read", rate, rate / MB, 1000, int(rate), 1000)}, 1, 1, 1, "")
        records.append(PointRecord(i, 1, i, p, "ok", result=result))
    (view,) = array_views(records, {})
    return view


@pytest.mark.parametrize(("drives", "sizes"), [(2, [1, 2]), (4, [1, 2, 4]), (5, [1, 2, 4, 5])])
def test_the_scaling_table_has_the_best_drive_alone_then_every_set_of_two_and_more(drives, sizes):
    from iolab.views.array_tables import scaling_table_of

    table = scaling_table_of(_array_view(drives, 1e9, {}))
    assert table is not None
    devices = [row.numbers["devices"].mean if "devices" in row.numbers else row.cells[0] for row in table.rows]
    assert [int(str(d)) for d in devices] == sizes
    assert table.rows[0].cells[-1].startswith("alone-")  # the set of one is the best drive alone, named


def test_a_set_at_the_sum_of_its_drives_alone_has_no_note_and_one_above_it_says_why():
    from iolab.views.array_tables import scaling_table_of

    fine = scaling_table_of(_array_view(2, 1e9, {"seqread-together": 2.04e9}))
    above = scaling_table_of(_array_view(2, 1e9, {"seqread-together": 2.2e9}))
    assert fine is not None and above is not None
    assert not [n for row in fine.rows for n in row.notes]
    (note,) = [n for row in above.rows for n in row.notes]
    assert "of its devices alone: more together than their sum" in note


def _series(values: list[float]) -> Series:
    times = [i * HOUR for i in range(len(values))]
    return Series("h", "/t", "w", "w", "bw", list(range(1, len(values) + 1)), times, values, [False] * len(values))


def test_the_latest_health_is_the_window_ending_at_the_last_run_not_the_one_before():
    steady = [100.0, 101.0, 99.0, 100.0, 100.5]
    assert latest_health(_series(steady), 24 * HOUR, 0.08, 3).state == "healthy"
    last_jumps = latest_health(_series([*steady, 300.0]), 24 * HOUR, 0.08, 3)
    assert last_jumps.state == "unhealthy" and last_jumps.cov > 0.3
    # the window reaches back window_s from the last run only: the jump 30 h before it has left the window
    late = _series([300.0, *steady])
    late.times = [0.0] + [30 * HOUR + i * HOUR for i in range(len(steady))]
    assert latest_health(late, 24 * HOUR, 0.08, 3).state == "healthy"
    assert latest_health(_series(steady[:2]), 24 * HOUR, 0.08, 3).state == "insufficient"


def _hourly_store(home, values: list[float]):  # type: ignore[no-untyped-def]
    store = open_store(home)
    for i, value in enumerate(values):
        run_id, _ = _run(store, "seq", SEQ_READ, [_bw(value)])
        store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (1.7e9 + i * HOUR, run_id))
    store.conn.commit()
    return store


@pytest.mark.parametrize(
    ("values", "healthy"),
    [([400, 402, 398, 401, 399, 400], True), ([400, 402, 398, 401, 399, 700], False), ([400, 402], None)],
)
def test_the_exported_healthy_is_the_latest_window_s_state(iolab_home, values, healthy):
    store = _hourly_store(iolab_home, values)
    (metrics,) = series_metrics(store, load_series(store), 48 * HOUR, 0.08, 3)
    assert metrics.healthy is healthy
    assert metrics.bandwidth_bytes_per_second == values[-1] * MB
    store.close()
    exported = CliRunner().invoke(app, ["export", "--format", "prometheus", "--min-runs", "3"])
    assert exported.exit_code == 0, exported.output
    lines = [ln for ln in exported.stdout.splitlines() if ln.startswith("iolab_healthy{")]
    assert [ln.rpartition(" ")[2] for ln in lines] == {True: ["1.0"], False: ["0.0"], None: []}[healthy]


def test_a_compare_side_counts_its_failed_repeats_and_leaves_them_out_of_its_figure(iolab_home):
    store = open_store(iolab_home)
    a, _ = _run(store, "seq", SEQ_READ, [_bw(400), None, _bw(404)])
    b, _ = _run(store, "seq", SEQ_READ, [_bw(300), _bw(302)])
    store.close()
    shown = CliRunner().invoke(app, ["compare", str(a), str(b), "--json"])
    assert shown.exit_code == 0, shown.output
    (row,) = json.loads(shown.stdout)["workloads"]
    assert row["a"]["failed"] == 1 and row["b"]["failed"] == 0
    assert row["a"]["values"] == [400 * MB, 404 * MB]  # a failed repeat is no 0 MB/s
