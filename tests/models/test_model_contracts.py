"""Contracts of iolab's models that `bench/mutation.py --whole` found no fast test holding (issue 41): a spread
written in its mean's unit at every unit, fullness changes at exactly the step, iolab's option bounds inside
fio's, what a chart shows among the kept percentiles, and which points count as measured."""

from __future__ import annotations

import re

import pytest

from iolab.models import PERCENTILES, Point, PointRecord, Target
from iolab.models.option_spec import ROWS
from iolab.models.plan import LatencyCurve, Workload
from iolab.models.result import DirectionResult, Result, primary_metric
from iolab.models.snapshot import FileSystem
from iolab.models.snapshot_diff import FULLNESS_STEP, _fs_changes
from iolab.models.units import SCALED_UNITS, latency, spread
from iolab.models.workload import metric_for
from iolab.report.charts import PERCENTILES_SHOWN

# Means across every unit latency() writes, with each unit's exact boundary and a value just under it.
MEANS_NS = [1.0, 999.0, 1e3, 1500.0, 999_999.0, 1e6, 2.5e6, 1e9, 3.2e10]


@pytest.mark.parametrize("mean", MEANS_NS)
@pytest.mark.parametrize("share", [0.001, 0.12, 1.0, 7.0])
def test_a_spread_is_written_in_its_means_unit_and_reads_back_as_the_stddev(mean, share):
    stddev = max(mean * share, 1.0)
    text = spread(mean, stddev, latency)
    m = re.fullmatch(r"([\d.,]+) (\S+) ± ([\d.,]+) (\S+)", text)
    assert m, text
    assert m[2] == m[4], text  # one unit for both figures: the mean's
    back = float(m[3].replace(",", "")) * SCALED_UNITS["latency"][m[4]]
    assert back == pytest.approx(stddev, rel=0.006, abs=0.5), text


def _fs(used: int) -> FileSystem:
    return FileSystem("/mnt", "ext4", "/dev/sdb", "8:16", size_bytes=1000, used_bytes=used)


@pytest.mark.parametrize("steps", [0.0, 0.9, 1.0, 1.1, 5.0])
def test_a_fullness_change_is_listed_from_exactly_one_step(steps):
    after = 100 + round(steps * FULLNESS_STEP * 10)  # 10 bytes of 1000 are one percent
    listed = [c for c in _fs_changes(_fs(100), _fs(after)) if c.what == "used"]
    assert bool(listed) == (steps >= 1.0)


def test_iolab_bounds_of_an_option_lie_inside_fios_range():
    for row in ROWS:
        if row.bounds is None:
            continue
        low, high = row.bounds
        assert row.low is None or low >= row.low, row.name
        assert row.high is None or high <= row.high, row.name


def test_every_percentile_a_chart_draws_is_one_iolab_keeps():
    assert set(PERCENTILES_SHOWN) <= set(PERCENTILES)
    assert list(PERCENTILES) == sorted(PERCENTILES) and all(0 < p < 100 for p in PERCENTILES)


def test_a_latency_curve_runs_at_ten_to_a_hundred_percent_in_tens():
    # docs/plans.md: "runs limited to 10%, 20%, ... 100% of its IOPS"
    curve = LatencyCurve(Workload("probe", {"rw": "randread"}))
    assert curve.fractions == pytest.approx([k / 10 for k in range(1, 11)])


def _record(status: str, result: Result | None) -> PointRecord:
    target = Target("/dev/sdb", "block", "/dev/sdb", 2**30)
    return PointRecord(1, 1, 1, Point("p", target, {"rw": "randread"}), status, result=result)


RESULT = Result({"read": DirectionResult("read", 1e9, 953.7, 1000, 10**9, 1000)}, 1.0, 5.0, 1, "fio-3.33")


@pytest.mark.parametrize("status", ["ok", "partial", "failed", "stopped", "pending"])
@pytest.mark.parametrize("result", [RESULT, None])
def test_a_point_is_measured_only_when_it_finished_with_a_result(status, result):
    assert _record(status, result).measured == (status in ("ok", "partial") and result is not None)


def test_a_failed_point_counts_as_nothing_to_a_search():
    assert primary_metric(None) == 0.0
    assert primary_metric(None, "bw") == 0.0
    assert primary_metric(RESULT) > 0


@pytest.mark.parametrize("rw", ["read", "randread", "write"])
def test_an_mdtest_import_is_judged_by_operations_per_second(rw):
    assert metric_for({"tool": "mdtest", "rw": rw, "iodepth": "1", "numjobs": "1"}) == "iops"


@pytest.mark.parametrize("ns", [0.0, 1.0, 999.0, 999.4, 1e3, 9_999.0, 1e4, 99_999.0, 1e5, 1e6, 1e7, 1e8, 1e9, 5e11])
def test_a_latency_is_written_in_the_largest_unit_it_reaches_and_reads_back(ns):
    value, unit = latency(ns).split(" ")
    scales = SCALED_UNITS["latency"]
    assert unit == max((u for u, scale in scales.items() if ns >= scale), key=scales.get, default="ns")
    assert float(value) * scales[unit] == pytest.approx(ns, rel=0.006, abs=0.5)
