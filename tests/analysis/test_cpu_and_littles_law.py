"""CPU-bound runs and Little's law, with known verdicts."""

import math

import pytest

from iolab.analysis.cpu import check_cpu_bound
from iolab.analysis.littles_law import littles_law_check
from iolab.models import Severity


def test_hot_job_and_saturated_cpu():
    report = check_cpu_bound({"job0": 99.2, "job1": 40.0}, {"cpu0": [97, 99, 98, 100], "cpu1": [20, 30, 25]})
    assert report.cpu_bound
    assert report.hot_jobs == {"job0": 99.2} and report.saturated_cpus == {"cpu0": 98.5}
    (finding,) = report.findings()
    assert finding.evidence["job job0"] == "99% of a core" and "90%" in finding.evidence["method"]


def test_not_cpu_bound_and_edge_cases():
    assert check_cpu_bound({"job0": 30.0}, {"cpu0": [10.0] * 5}).findings() == []
    assert check_cpu_bound({}, {"cpu0": [99.0, 99.0]}).evaluated is False  # too few samples
    empty = check_cpu_bound({}, {})
    assert not empty.evaluated and empty.findings()[0].severity is Severity.NOT_EVALUATED
    assert not check_cpu_bound({"job0": math.nan}).evaluated


def test_littles_law_verdicts():
    ok = littles_law_check(iops=100_000, mean_latency_ns=320_000, iodepth=32)
    assert ok.verdict == "ok" and ok.effective == pytest.approx(32.0) and ok.findings() == []
    limited = littles_law_check(iops=100_000, mean_latency_ns=100_000, iodepth=32, numjobs=2)
    assert limited.asked == 64 and limited.verdict == "load-limited" and limited.ratio == pytest.approx(10 / 64)
    assert limited.findings()[0].severity is Severity.WARNING
    assert littles_law_check(iops=1000, mean_latency_ns=2e6, iodepth=1).verdict == "inconsistent"
    assert littles_law_check(iops=0, mean_latency_ns=1e5, iodepth=4).verdict == "not-evaluated"
    assert littles_law_check(iops=math.nan, mean_latency_ns=1e5, iodepth=4).verdict == "not-evaluated"
