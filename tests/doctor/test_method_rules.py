"""Method rules that used to fire on every run: unwritten reads, cache size, ramp, metadata jobs."""

from __future__ import annotations

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context, JobView
from iolab.models import Severity

GIB = 1 << 30


def _run(rule_id: str, ctx: Context) -> list:
    return evaluate(ctx, [r for r in all_rules() if r.id == rule_id])


def _block_job(path: str, **options: str) -> JobView:
    return JobView(
        name="rr",
        options={"filename": path, "rw": "randread", "direct": "1", **options},
        target_path=path,
        target_kind="block",
    )


def test_cache_size_counts_distinct_bytes_and_speaks_of_the_device_cache_for_direct_io():
    ram = 16 * GIB
    whole_device = _block_job("/dev/loop0", size=str(300 << 20), numjobs="4")
    assert _run("FIO-CACHE-SIZE", Context(jobs=[whole_device], mem_total_bytes=ram)) == []
    buffered = _block_job("/dev/loop0", size=str(300 << 20), numjobs="4", direct="0")
    (finding,) = _run("FIO-CACHE-SIZE", Context(jobs=[buffered], mem_total_bytes=ram))
    assert finding.evidence["distinct bytes"] == "0.3 GiB" and "page cache" in finding.title  # not 1.2 GiB
    assert finding.severity is Severity.WARNING
    small_file = JobView("f", {"filename": "/data/f", "size": "1G", "direct": "1"}, "/data/f", "file")
    (finding,) = _run("FIO-CACHE-SIZE", Context(jobs=[small_file], mem_total_bytes=ram))
    assert finding.severity is Severity.INFO and "DRAM or SLC cache" in finding.title
    per_job_files = JobView(
        "d", {"directory": "/data", "size": "1G", "numjobs": "4", "direct": "0"}, "/data", "directory"
    )
    (finding,) = _run("FIO-CACHE-SIZE", Context(jobs=[per_job_files], mem_total_bytes=ram))
    assert finding.evidence["distinct bytes"] == "4.0 GiB"  # one file per job in a directory


def test_no_ramp_is_context_for_reads_and_writes_alike():
    for rw in ("randread", "randwrite"):
        (finding,) = _run("FIO-NO-RAMP", Context(jobs=[_block_job("/dev/loop0", rw=rw, runtime="10")]))
        assert finding.severity is Severity.INFO


def test_metadata_jobs_get_none_of_the_data_rules():
    create = JobView(
        "create-j4",
        {
            "ioengine": "filecreate",
            "nrfiles": "1000",
            "filesize": "4k",
            "numjobs": "4",
            "directory": "/data",
            "thread": "1",
        },
        "/data",
        "directory",
    )
    ctx = Context(jobs=[create], mem_total_bytes=16 * GIB)
    for rule_id in ("FIO-NO-RAMP", "FIO-CACHE-SIZE", "FIO-FILE-TARGET", "FIO-BUFFERED"):
        assert _run(rule_id, ctx) == [], rule_id


def _phase(name: str, runtime_ms: int, operations: int) -> JobView:
    from iolab.models import DirectionResult, Result

    result = Result(
        {"read": DirectionResult("read", 0.0, 1.0, operations, operations * 4096, runtime_ms)}, 50, 50, 4, ""
    )
    options = {"ioengine": "filedelete", "nrfiles": "100", "numjobs": "4", "directory": "/data"}
    return JobView(name, options, "/data", "directory", result=result)


def test_a_metadata_phase_is_judged_by_how_well_fio_timed_it_not_by_data_advice():
    fine, tiny, instant = _phase("remove-j4", 400, 400), _phase("remove-j8", 4, 400), _phase("remove-j16", 0, 16)
    ctx = Context(jobs=[fine, tiny, instant, _phase("create-j4", 2000, 40)])
    findings = {f.subject: f for f in _run("MD-SHORT-PHASE", ctx)}
    assert set(findings) == {"remove-j8", "remove-j16"}  # 400 ms is timed to 0.25%: nothing to say
    assert findings["remove-j8"].title == "remove-j8 ran 4 ms (400 operations): its rate is timed to about 25%"
    assert findings["remove-j8"].severity is Severity.WARNING
    assert findings["remove-j16"].title.endswith("timed to no better than 100%")
    assert _run("FIO-SHORT-RUN", ctx) == []  # its advice (time_based, 60 s) cannot apply to a create or remove


def test_a_metadata_point_is_seen_without_the_targets_scratch_file_size():
    from iolab.models import Point, Target

    target = Target("/data", "directory", "/data/iolab-scratch-0.dat", 2 << 30, scratch=True, writable=True)
    view = JobView.from_point(Point("create-j8", target, {"ioengine": "filecreate", "numjobs": "8"}), None)
    assert "size" not in view.options and "filename" not in view.options and view.target_kind == "directory"
    assert _run("FIO-CACHE-SIZE", Context(jobs=[view], mem_total_bytes=16 * GIB)) == []


def test_a_point_stopped_by_design_is_not_a_short_run():
    """Issue 33: FIO-SHORT-RUN fired on points fio's ss= or --stop-when-known ended once their number was known."""
    from iolab.models import DirectionResult, Result
    from iolab.models.result import SteadyState, StopRecord

    def job(name: str, **kw) -> JobView:
        result = Result({"read": DirectionResult("read", 1e9, 1e4, 30_000, 3 * 10**9, 3_000)}, 50, 50, 1, "", **kw)
        return JobView(name, {"rw": "read", "time_based": "1", "runtime": "60"}, "/dev/x", "block", result=result)

    held = SteadyState("iops:2.000000%", True, 3_000, "0.5%", 2.0)
    missed = SteadyState("iops:2.000000%", False, 3_000, "9%", 2.0)
    met, cut = StopRecord("target met", 0.01, 0.02, 0, 3), StopRecord("target not met", 0.08, 0.02, 0, 3)
    jobs = [job("plain"), job("ss", steady=held), job("ss-missed", steady=missed), job("known", stopping=met)]
    jobs.append(job("cut", stopping=cut))
    named = {f.subject for f in _run("FIO-SHORT-RUN", Context(jobs=jobs))}
    assert named == {"plain", "ss-missed", "cut"}
