"""Notebook tables built from real fio runs: axes, order, fixed parameters, repeat statistics."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from stored_runs import SWEEP_LABEL, StoredRun, requires_fio

from iolab.imports import import_paths
from iolab.models import units
from iolab.store.db import open_store
from iolab.store.queries import get_run, point_samples, run_points
from iolab.views.tables import build_report, notebook_tables

pytestmark = requires_fio
FIO_DATA = Path(__file__).parent.parent / "data" / "fio"


def _samples(stored: StoredRun) -> dict:
    return {r.id: point_samples(stored.store, r.id) for r in stored.records}


def _column(table, key: str) -> list[str]:
    index = [c.key for c in table.columns].index(key)
    return [row.cells[index] for row in table.rows]


def test_qd_sweep_is_one_table_in_numeric_order_with_fixed_parameters_stated(qd_sweep):
    report = build_report(qd_sweep.run, qd_sweep.records, _samples(qd_sweep))
    assert report.title == f"Run {qd_sweep.run.id}: {SWEEP_LABEL}"
    [table] = report.tables
    assert table.axis == "iodepth"
    assert [c.header for c in table.columns][:2] == ["iodepth", "MB/s"]
    assert _column(table, "iodepth") == ["1", "2", "4"]  # planned as 4, 1, 2
    fixed = dict(table.fixed)
    target = qd_sweep.records[0].point.target
    assert fixed["rw"] == "randread" and fixed["bs"] == "4k" and fixed["ioengine"] == "libaio"
    assert fixed["numjobs"] == "1" and fixed["direct"] == ("1" if target.direct else "0")
    assert "iodepth" not in fixed
    assert table.fixed_text.startswith("rw=randread bs=4k numjobs=1 ioengine=libaio")
    assert table.fixed_text.endswith(f" on {target.path}")
    assert _column(table, "repeats") == ["2", "2", "2"]
    assert all(len(row.point_ids) == 2 for row in table.rows)


def test_repeats_are_mean_and_sample_stddev_with_cov_recomputed_from_the_store(qd_sweep):
    [table] = notebook_tables(qd_sweep.records, _samples(qd_sweep))
    by_qd: dict[str, list] = defaultdict(list)
    for record in run_points(qd_sweep.store, qd_sweep.run.id):
        by_qd[record.point.options["iodepth"]].append(record.result)
    assert "mean of repeats" in [c.header for c in table.columns if c.key == "lat_p99_ns"][0]
    for row in table.rows:
        results = by_qd[row.cells[0]]
        assert len(results) == 2
        bw = [r.directions["read"].bw_bytes for r in results]
        mean, sd = statistics.mean(bw), statistics.stdev(bw)  # stdev is n-1
        assert row.numbers["bw_bytes"].mean == pytest.approx(mean)
        assert row.numbers["bw_bytes"].stddev == pytest.approx(sd)
        cov = sd / mean
        assert row.cells[1] == f"{units.mb_per_s(mean)} ± {units.mb_per_s(sd)} ({units.percent(100 * cov)})"
        p99s = [r.directions["read"].latency.percentiles[99.0] for r in results]
        assert row.numbers["lat_p99_ns"].mean == pytest.approx(statistics.mean(p99s))
        assert row.cells[5] == units.spread(statistics.mean(p99s), statistics.stdev(p99s), units.latency)  # one unit
        # 95% CI of the mean bandwidth on the log scale (Cox: a rate's interval stays above zero): with m and s²
        # the mean and sample variance of the logs, exp(m + s²/2 ± t(0.975, n-1) * sqrt(s²/n + s⁴/(2(n-1)))),
        # t(0.975, 1) = 12.7062 (tables). Compared as numbers to the cell's own resolution: a bound that falls
        # on a rounding edge may print either way, and the measured data decides where the bounds fall.
        logs = [math.log(v) for v in bw]
        m, var = statistics.mean(logs), statistics.variance(logs)
        half = 12.7062047 * math.sqrt(var / len(bw) + var**2 / (2 * (len(bw) - 1)))
        if 2 * half > math.log(100):  # an interval spanning over 100x has no ends (two 1 s repeats of a busy host)
            assert row.cells[2] == "too wide to say (2 repeats far apart)", (row.cells[2], bw)
        else:
            low, high = (float(part.replace(",", "")) for part in row.cells[2].split(" – "))
            bounds = ((low, math.exp(m + var / 2 - half) / 1e6), (high, math.exp(m + var / 2 + half) / 1e6))
            for shown, expected in bounds:
                resolution = 1.0 if abs(expected) >= 100 else 0.1 if abs(expected) >= 1 else 0.01
                assert abs(shown - expected) <= resolution, (row.cells[2], expected)
        cpu = [r.cpu for r in results]
        assert row.numbers["cpu_percent"].stddev == pytest.approx(statistics.stdev(cpu))
        # 1 s points log a single per-second sample: there is no within-run spread to show.
        assert row.cells[6] == "-" and row.numbers["bw_stddev_bytes"] is None


def test_mixed_workload_gets_a_row_per_direction_and_within_run_bw_stddev(bs_sweep):
    [table] = notebook_tables(bs_sweep.records, _samples(bs_sweep))
    assert table.axis == "bs"
    assert [c.key for c in table.columns][:3] == ["bs", "ddir", "bw_bytes"]
    ok_rows = [row for row in table.rows if not row.failed]
    assert [(row.cells[0], row.ddir) for row in ok_rows] == [
        ("4k", "read"),
        ("4k", "write"),
        ("64k", "read"),
        ("64k", "write"),
    ]
    assert _column(table, "bs")[0] == "1000"  # 1000 < 4k (4096) < 64k
    assert dict(table.fixed)["rwmixread"] == "70" and dict(table.fixed)["numjobs"] == "2"
    records = {r.point.options["bs"]: r for r in bs_sweep.records}
    for row in ok_rows:
        record = records[row.cells[0]]
        # Independently: bandwidth of both jobs summed per logged second, then the n-1 stddev.
        per_second: dict[int, list[float]] = defaultdict(list)
        for s in point_samples(bs_sweep.store, record.id):
            if s.metric == "bw" and s.ddir == row.ddir:
                per_second[round(s.t_ms / 1000)].append(s.value)
        totals = [sum(v) for v in per_second.values() if len(v) == 2]
        assert len(totals) >= 2, per_second
        assert row.numbers["bw_stddev_bytes"].mean == pytest.approx(statistics.stdev(totals))
        assert row.cells[6] == units.mb_per_s(statistics.stdev(totals))
        assert row.numbers["bw_bytes"].mean == record.result.directions[row.ddir].bw_bytes
    cpu = _column(table, "cpu_percent")
    assert cpu[1] != "" and cpu[2] == ""  # CPU is per point: on the read row only


def test_failed_point_stays_in_its_table_as_failed_with_fios_error(bs_sweep):
    failed = next(r for r in bs_sweep.records if r.point.options["bs"] == "1000")
    if not failed.point.target.direct:
        pytest.skip("the scratch directory has no O_DIRECT, so bs=1000 does not fail here")
    assert failed.status == "failed"
    [table] = notebook_tables(bs_sweep.records, _samples(bs_sweep))
    row = table.rows[0]
    assert row.failed and row.cells[0] == "1000" and row.cells[2] == "failed"
    assert row.cells[-1] == "0 of 1 ok (1 failed)"
    assert table.notes and table.notes[0].startswith("bs=1000, repeat 1") and failed.error in table.notes[0]


def test_unrelated_workloads_make_one_overview_table(tmp_path):
    """Real fio outputs of unrelated jobs (as `iolab import` stores them): a row per workload."""
    store = open_store()
    paths = [str(p) for p in sorted(FIO_DATA.glob("*.json"))]
    outcome = import_paths(paths, store, "iolab import")
    records = run_points(store, outcome.run_id)
    report = build_report(get_run(store, outcome.run_id), records, {})
    # file operations (fio's filecreate/filestat/filedelete outputs) get a table each, in ops/s
    table, *operations = report.tables
    assert [t.title for t in operations] == [f"file {op}: ops/s by threads" for op in ("create", "remove", "stat")]
    assert table.axis is None and table.title == "Workloads"
    data = [r for r in records if not r.point.job.is_metadata]
    names = _column(table, "name")
    expected_rows = sum(max(1, len(r.result.directions)) if r.result else 1 for r in data)
    assert len(table.rows) == expected_rows
    assert set(names) == {r.point.name for r in data}
    mix = [row for row in table.rows if row.cells[0] == "mix"]
    assert [row.ddir for row in mix] == ["read", "write"]
    headers = [c.header for c in table.columns]
    assert {"rw", "bs", "iodepth", "other options", "dir"} <= set(headers)
    assert all(len(row.cells) == len(table.columns) for row in table.rows)
