"""`iolab lint`'s fio method rules at their triggers, each both ways (issue 41: no fast test named these rules;
`bench/mutation.py --whole` finds their conditions held by none): buffered libaio, an async engine at depth 1,
compressible write buffers, pacing, verification, and fio's own error code after a run."""

from __future__ import annotations

from iolab.doctor import lint_jobs
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context, JobView
from iolab.fio.jobfile import parse_jobfile
from iolab.models import DirectionResult, Finding, Result, Snapshot


def _lint(rule_id: str, options: str) -> list[Finding]:
    text = "[job]\nfilename=/dev/nvme0n1\nruntime=60\ntime_based=1\nrw=randread\nbs=4k\n" + options
    return [f for f in lint_jobs(parse_jobfile(text)) if f.rule_id == rule_id]


def _titles(rule_id: str, options: str) -> list[str]:
    return [f.title for f in _lint(rule_id, options)]


def test_buffered_libaio_above_depth_1_is_synchronous():
    said = "job: libaio with buffered I/O is synchronous"
    assert _titles("FIO-LIBAIO-BUFFERED", "ioengine=libaio\niodepth=2\n") == [said]
    assert _titles("FIO-LIBAIO-BUFFERED", "ioengine=posixaio\niodepth=32\n") == [
        "job: posixaio with buffered I/O is synchronous"
    ]
    assert _titles("FIO-LIBAIO-BUFFERED", "ioengine=libaio\niodepth=1\n") == []
    assert _titles("FIO-LIBAIO-BUFFERED", "ioengine=libaio\niodepth=32\ndirect=1\n") == []
    assert _titles("FIO-LIBAIO-BUFFERED", "ioengine=io_uring\niodepth=32\n") == []
    (found,) = _lint("FIO-LIBAIO-BUFFERED", "ioengine=libaio\niodepth=2\n")
    assert found.evidence["iodepth"] == "2" and found.evidence["ioengine"] == "libaio"


def test_an_async_engine_at_depth_1_with_up_to_2_jobs_measures_latency_unless_it_says_so():
    direct = "ioengine=io_uring\ndirect=1\n"
    assert _titles("FIO-QD1-ASYNC", direct + "iodepth=1\nnumjobs=2\n") == ["job: io_uring at iodepth 1"]
    assert _titles("FIO-QD1-ASYNC", direct) == ["job: io_uring at iodepth 1"]  # fio's default depth is 1
    assert _titles("FIO-QD1-ASYNC", direct + "iodepth=1\nnumjobs=3\n") == []
    assert _titles("FIO-QD1-ASYNC", direct + "iodepth=2\n") == []
    assert _titles("FIO-QD1-ASYNC", direct + "description=QD1 Latency of 4k reads\n") == []
    assert _titles("FIO-QD1-ASYNC", "ioengine=psync\n") == []


def test_compressible_buffers_are_named_only_for_writes_and_only_when_on():
    write = "rw=randwrite\n"
    (zeros,) = _lint("FIO-BUFFER-CONTENT", write + "zero_buffers\n")
    assert zeros.title == "job writes compressible data" and zeros.evidence == {"zero_buffers": "1"}
    (both,) = _lint("FIO-BUFFER-CONTENT", write + "buffer_compress_percentage=50\ndedupe_percentage=0\n")
    assert both.evidence == {"buffer_compress_percentage": "50"}
    assert _lint("FIO-BUFFER-CONTENT", write + "buffer_compress_percentage=0\n") == []
    assert _lint("FIO-BUFFER-CONTENT", "zero_buffers\n") == []  # a read job's buffers are not written


def test_a_paced_job_names_each_of_its_pacing_options():
    (paced,) = _lint("FIO-RATE-OR-THINKTIME", "rate_iops=500\nthinktime=10\n")
    assert paced.title == "job is rate-limited or paced" and paced.evidence == {"rate_iops": "500", "thinktime": "10"}
    assert _lint("FIO-RATE-OR-THINKTIME", "iodepth=4\n") == []


def test_verification_is_named_unless_it_is_off():
    assert _titles("FIO-VERIFY", "verify=crc32c\n") == ["job verifies (crc32c)"]
    assert _titles("FIO-VERIFY", "verify=0\n") == [] and _titles("FIO-VERIFY", "verify=null\n") == []
    assert _titles("FIO-VERIFY", "") == []


def test_a_job_fio_ended_with_an_error_code_is_named_with_it():
    def errors(code: int) -> list[Finding]:
        direction = DirectionResult("read", 1e8, 100.0, 1000, 10**8, 1000)
        result = Result({"read": direction}, 1.0, 1.0, 1, "fio-3.33", error=code)
        job = JobView("seq", {"rw": "read"}, result=result)
        return evaluate(Context(jobs=[job]), [r for r in all_rules() if r.id == "FIO-ERRORS"])

    (found,) = errors(5)
    assert found.title == "seq ended with fio error 5" and found.evidence == {"error": "5"}
    assert errors(0) == []


def _result(usr: float, sys: float, jobs: int) -> Result:
    return Result({"read": DirectionResult("read", 1e8, 100.0, 1000, 10**8, 1000)}, usr, sys, jobs, "fio-3.33")


def _cpu_bound(options: dict[str, str], result: Result) -> list[str]:
    job = JobView("seq", options, result=result)
    return [f.title for f in evaluate(Context(jobs=[job]), [r for r in all_rules() if r.id == "FIO-CPU-BOUND"])]


def test_fio_threads_at_70_percent_of_a_cpu_each_are_cpu_bound():
    assert _cpu_bound({"rw": "read"}, _result(30.0, 40.0, 1)) == ["seq: fio threads at 70% CPU each"]
    assert _cpu_bound({"rw": "read"}, _result(60.0, 80.0, 2)) == ["seq: fio threads at 70% CPU each"]
    assert _cpu_bound({"rw": "read"}, _result(30.0, 39.9, 1)) == []
    assert _cpu_bound({"rw": "read"}, _result(80.0, 80.0, 3)) == []  # 53% each
    assert _cpu_bound({"rw": "read"}, _result(30.0, 40.0, 0)) == []  # no job counted: nothing to share
    # file create/stat/delete jobs are system calls only
    assert _cpu_bound({"rw": "read", "ioengine": "filecreate"}, _result(10.0, 90.0, 1)) == []


def test_an_unpinned_job_is_named_on_a_host_of_two_numa_nodes_and_not_of_one():
    def unpinned(nodes: int, options: str = "") -> list[str]:
        snapshot = Snapshot(numa_nodes={str(n): f"{n * 8}-{n * 8 + 7}" for n in range(nodes)})
        text = "[job]\nfilename=/dev/nvme0n1\nruntime=60\ntime_based=1\nrw=randread\n" + options
        return [f.title for f in lint_jobs(parse_jobfile(text), snapshot=snapshot) if f.rule_id == "FIO-UNPINNED"]

    assert unpinned(2) == ["job is not pinned on a 2-node host"]
    assert unpinned(1) == []
    assert unpinned(2, "cpus_allowed=0-7\n") == [] and unpinned(2, "numa_cpu_nodes=0\n") == []


def test_a_synchronous_engine_is_capped_above_depth_1_and_short_of_jobs_at_it():
    assert _titles("FIO-SYNC-ENGINE-QD", "ioengine=psync\niodepth=2\n") == [
        "job asks for iodepth=2 from synchronous psync: fio caps it at 1"
    ]
    assert _titles("FIO-SYNC-ENGINE-QD", "ioengine=psync\niodepth=1\nnumjobs=4\n") == [
        "job: psync with 4 job(s) keeps only 4 I/O in flight"
    ]
    assert _titles("FIO-SYNC-ENGINE-QD", "ioengine=psync\nnumjobs=5\n") == []


def test_a_file_operation_phase_under_100_ms_says_how_coarsely_its_rate_is_timed():
    def short(engine: str, runtime_ms: int) -> list[str]:
        direction = DirectionResult("read", 0.0, 9000.0, 900, 0, runtime_ms)
        job = JobView("create", {"ioengine": engine, "rw": "read"}, result=Result({"read": direction}, 1, 1, 1, "3.33"))
        return [f.title for f in evaluate(Context(jobs=[job]), [r for r in all_rules() if r.id == "MD-SHORT-PHASE"])]

    assert short("filecreate", 99) == ["create ran 99 ms (900 operations): its rate is timed to about 1%"]
    assert short("filecreate", 3) == ["create ran 3 ms (900 operations): its rate is timed to about 33%"]
    assert short("filecreate", 100) == []
    assert short("libaio", 50) == []  # a data job's short run is FIO-SHORT-RUN's
    nothing = JobView("stat", {"ioengine": "filestat"}, result=Result({}, 1, 1, 1, "3.33"))
    (untimed,) = evaluate(Context(jobs=[nothing]), [r for r in all_rules() if r.id == "MD-SHORT-PHASE"])
    assert untimed.title == "stat ran 0 ms (0 operations): its rate is timed to no better than 100%"


def _set(text: str, **kwargs: int) -> list[Finding]:
    return lint_jobs(parse_jobfile(text), **kwargs)


def test_a_data_set_of_exactly_twice_ram_is_large_enough_and_a_mib_less_is_not():
    def cached(size: str) -> list[str]:
        text = f"[f]\nfilename=/srv/f.dat\nrw=read\nbs=1m\nsize={size}\nruntime=60\ntime_based=1\n"
        return [f.title for f in _set(text, mem_total_bytes=1 << 30) if f.rule_id == "FIO-CACHE-SIZE"]

    assert cached("2g") == []
    assert cached("2047m") == ["f touches 2.0 GiB through the page cache, under 2x RAM (2.0 GiB)"]


def test_a_fill_of_one_device_is_no_fill_of_another_and_is_no_unwritten_read_itself():
    text = (
        "[fill]\nfilename=/dev/nvme0n1\nrw=write\nbs=1m\n"
        "[other]\nfilename=/dev/nvme1n1\nrw=randread\nbs=4k\nruntime=60\ntime_based=1\n"
        "[same]\nfilename=/dev/nvme0n1\nrw=randread\nbs=4k\nruntime=60\ntime_based=1\n"
    )
    found = [f.title for f in _set(text) if f.rule_id == "FIO-UNWRITTEN-READ"]
    assert found == ["other reads /dev/nvme1n1 with no fill before it"]


def test_a_run_is_short_under_5_s_measured_and_one_that_measured_no_time_is_not_judged():
    def short(*runtimes_ms: int) -> list[str]:
        directions = {
            d: DirectionResult(d, 1e8, 100.0, 1000, 10**8, ms)
            for d, ms in zip(("read", "write"), runtimes_ms, strict=False)
        }
        job = JobView("seq", {"rw": "rw"}, result=Result(directions, 1.0, 1.0, 1, "fio-3.33"))
        return [f.title for f in evaluate(Context(jobs=[job]), [r for r in all_rules() if r.id == "FIO-SHORT-RUN"])]

    assert short(4_999, 1_000) == ["seq ran 5.0 s"]
    assert short(4_952, 4_000) == ["seq ran 5.0 s"] and short(4_948) == ["seq ran 4.9 s"]
    assert short(5_000, 1_000) == []
    assert short(0, 0) == []  # no direction timed: nothing to say it was short


def test_no_ramp_is_named_below_300_s_of_runtime_and_not_from_it():
    def ramp(options: str) -> list[str]:
        text = "[job]\nfilename=/dev/nvme0n1\nrw=randread\nbs=4k\ntime_based=1\n" + options
        return [f.title for f in lint_jobs(parse_jobfile(text)) if f.rule_id == "FIO-NO-RAMP"]

    assert ramp("runtime=299\n") == ["job has no ramp_time"]
    assert ramp("runtime=300\n") == []
    assert ramp("runtime=60\nramp_time=5\n") == []


def test_a_time_based_job_set_to_run_under_5_s_is_short_and_one_of_5_s_is_not():
    def short(options: str) -> list[str]:
        text = "[job]\nfilename=/dev/nvme0n1\nrw=randread\nbs=4k\n" + options
        return [f.title for f in lint_jobs(parse_jobfile(text)) if f.rule_id == "FIO-SHORT-RUN"]

    assert short("time_based=1\nruntime=4\n") == ["job is set to run 4 s"]
    assert short("time_based=1\nruntime=4.5\n") == ["job is set to run 4.5 s"]
    assert short("time_based=1\nruntime=5\n") == [] and short("time_based=1\n") == []
