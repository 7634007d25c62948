"""A finding's numbers are the numbers of the points it names (issue 31): every quote is held to its points.

The doctor recomputes each quoted figure from the points a finding names before the finding is stored;
a wrong one is a critical RES-INVARIANT finding. Here: each way a quote can be wrong is caught, a rule
that quotes wrongly is caught by the engine, and on generated sweeps and read/write pairs every quoted
figure of every rule is its points' figure and is shown in the finding.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from iolab.doctor import rule as rule_module
from iolab.doctor.engine import diagnose_run
from iolab.doctor.quotes import FORMATS, METRICS, figure, misquotes, quote
from iolab.models import Finding, Point, PointRecord, Severity, Target
from iolab.models.material import RunMaterial
from iolab.models.result import DirectionResult, LatencyStats, Result

TARGET = Target(path="/dev/x", kind="block", filename="/dev/x", size_bytes=1 << 30)


def result(read_bw: float = 0.0, write_bw: float = 0.0, bs: int = 4096, jobs: int = 1) -> Result:
    """A result that holds every invariant: 10 s of I/O at these rates, in blocks of `bs`."""
    directions = {}
    for ddir, bw in (("read", read_bw), ("write", write_bw)):
        if bw:
            latency = LatencyStats("lat", 1000, 1e5, 1e4, 1e5, 1e6)
            ios = int(bw * 10 / bs)
            directions[ddir] = DirectionResult(ddir, ios * bs / 10, ios / 10, ios, ios * bs, 10_000, latency)
    return Result(directions, 10.0, 10.0, jobs, "fio-3.33")


def finding_with(q, text: str | None = None) -> Finding:
    return Finding("X-RULE", "results", Severity.INFO, text if text is not None else f"p reads {q.shown}", quotes=(q,))


def test_a_true_quote_passes_and_each_kind_of_wrong_one_is_named():
    results = {"1": result(read_bw=200e6), "2": result(read_bw=100e6)}
    good = quote([("1", results["1"])], "read.bw", "MB/s")
    assert good.shown == "200 MB/s" and misquotes([finding_with(good)], results) == []
    cases = {
        "another point's figure": replace(good, points=("2",)),
        "a figure the points do not give": replace(good, value=210e6, shown="210 MB/s"),
        "a text made from another number": replace(good, shown="210 MB/s"),
        "a point not in the run": replace(good, points=("9",)),
        "a direction the point did not do": replace(good, metric="write.bw"),
    }
    for case, wrong in cases.items():
        assert misquotes([finding_with(wrong)], results), case
    # the figure right, but the finding shows another number
    assert misquotes([finding_with(good, "p reads 210 MB/s")], results)


def test_the_mean_of_repeats_is_quoted_and_held_to_all_of_them():
    results = {"1": result(read_bw=100e6), "2": result(read_bw=120e6), "3": result(read_bw=140e6)}
    q = quote([(k, r) for k, r in results.items()], "bw", "MB/s")
    assert q.value == pytest.approx(120e6, rel=1e-4) and q.shown == "120 MB/s"
    assert misquotes([finding_with(q)], results) == []
    assert misquotes([finding_with(replace(q, points=("1", "2")))], results)  # one repeat left out


def test_every_metric_reads_what_its_name_says():
    r = result(read_bw=300e6, write_bw=100e6)
    assert figure(r, "bw") == pytest.approx(400e6, rel=1e-4) and figure(r, "iops") == pytest.approx(400e6 / 4096, 1e-4)
    assert figure(r, "read.bw") == pytest.approx(300e6, 1e-4)
    assert figure(r, "write.iops") == pytest.approx(100e6 / 4096, 1e-4)
    assert figure(r, "trim.bw") is None
    assert set(METRICS) >= {"bw", "iops", "lat_mean", "read.bw", "write.iops"}
    with pytest.raises(ValueError):
        figure(r, "bw_bytes")


def test_a_rule_that_quotes_the_wrong_point_is_a_critical_finding(monkeypatch):
    """A planted rule quotes one point's rate under another's name: the engine says so before storing."""
    records = [
        PointRecord(1, 1, 1, Point("fast", TARGET, {"rw": "read", "bs": "4k"}), "ok", result=result(read_bw=900e6)),
        PointRecord(2, 1, 2, Point("slow", TARGET, {"rw": "read", "bs": "4k"}), "ok", result=result(read_bw=90e6)),
    ]

    def liar(ctx, r):
        fast, slow = sorted(ctx.results, key=lambda job: job.name)
        wrong = replace(quote([(fast.key, fast.result)], "read.bw", "MB/s"), points=(slow.key,))
        yield r.finding(f"slow reads {wrong.shown}", "slow", quotes=[wrong])

    planted = replace(next(r for r in rule_module.RULES if r.id == "RES-WRITE-GT-READ"), id="X-LIAR", check=liar)
    monkeypatch.setattr(rule_module, "RULES", [*rule_module.RULES, planted])
    monkeypatch.setattr("iolab.doctor.engine.RULES", rule_module.RULES)
    findings = diagnose_run(RunMaterial(records=records))
    broken = [f for f in findings if f.rule_id == "RES-INVARIANT"]
    assert len(broken) == 1 and broken[0].severity is Severity.CRITICAL
    assert "X-LIAR" in broken[0].title and "900 MB/s" in broken[0].evidence["by"]


def _generated_run(rng: random.Random) -> list[PointRecord]:
    """A queue-depth sweep with repeats and more job counts, and read/write pairs where writes may outrun reads."""
    records: list[PointRecord] = []

    def add(name: str, options: dict[str, str], r: Result, repeat: int) -> None:
        n = len(records) + 1
        records.append(PointRecord(n, 1, n, Point(name, TARGET, options, repeat), "ok", result=r))

    repeats = rng.randint(1, 3)
    for jobs in (1, rng.choice([2, 4])):
        for qd in (1, 2, 4, 8, 16, 32):
            level = 1e8 * min(qd * jobs, rng.uniform(4, 48)) * rng.uniform(0.8, 1.2)
            for repeat in range(repeats):
                bw = level * rng.uniform(0.9, 1.1)
                options = {"rw": "randread", "bs": "4k", "iodepth": str(qd), "numjobs": str(jobs)}
                add(f"rr-qd{qd}-j{jobs}", options, result(read_bw=bw, jobs=jobs), repeat)
    for bs, size in (("4k", 4096), ("1m", 1 << 20)):
        add(f"read-{bs}", {"rw": "read", "bs": bs}, result(read_bw=rng.uniform(1e8, 1e9), bs=size), 0)
        add(f"write-{bs}", {"rw": "write", "bs": bs}, result(write_bw=rng.uniform(1e8, 3e9), bs=size), 0)
    return records


def test_on_generated_runs_every_quote_is_its_points_figure_and_is_shown():
    rng = random.Random(31)
    quoted = 0
    rules_quoting: set[str] = set()
    for _ in range(60):
        records = _generated_run(rng)
        findings = diagnose_run(RunMaterial(records=records))
        assert not [f.title for f in findings if f.rule_id == "RES-INVARIANT"]
        results = {str(r.id): r.result for r in records if r.result is not None}
        for f in findings:
            for q in f.quotes:
                quoted += 1
                rules_quoting.add(f.rule_id)
                assert q.shown == FORMATS[q.unit](q.value)
        assert misquotes(findings, results) == []
    # the generator reaches the quoting rules, so the check above could have failed
    assert {"RES-QD-PEAK", "RES-QD-KNEE", "RES-WRITE-GT-READ"} <= rules_quoting and quoted > 300
