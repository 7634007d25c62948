"""fio methodology rules (catalogue C0): what a job file or a run's options get wrong.

These read only job options (and a Result where one exists), so `iolab lint`
can run them on a job file before anything runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import ASYNC_ENGINES, SYNC_ENGINES, Context, JobView, Rule, rule
from iolab.models import Finding, Result


def _gib(n: int | None) -> str:
    return f"{n / 2**30:.1f} GiB" if n is not None else "?"


def _opts(job: JobView, *keys: str) -> dict[str, str]:
    shown: dict[str, str] = {}
    for k in keys:
        value = job.given(k)
        shown[k] = "(default)" if value is None else value
    return shown


@rule(
    id="FIO-BUFFERED",
    family="method",
    level="high",
    needs="jobs",
    title="Buffered I/O: the page cache is in the measurement",
    applies="every job but file create/stat/delete jobs",
    trigger="direct is not 1 (fio's default is buffered), or buffered=1",
    why="Reads may be served from RAM and writes complete into RAM, so the number measures memory and dirty limits, "
    "not the device.",
    fix="direct=1 with an async engine and a queue depth; if buffered is what you want, a data set >= 2x RAM and end_fsync=1.",
    evidence="direct, buffered",
    source="fio HOWTO direct/buffered",
)
def buffered(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        if not job.direct and not job.metadata:  # a file create/stat/delete moves no data through any cache
            yield r.finding(f"{job.name} uses buffered I/O", job.name, _opts(job, "direct", "buffered"))


@rule(
    id="FIO-CACHE-SIZE",
    family="method",
    level="high",
    needs="jobs",
    title="Data set small enough to be cached",
    applies="jobs with a size",
    trigger="distinct bytes touched < 2 x RAM: high when buffered (the page cache holds them); info with direct=1 on "
    "a file or part of a device (the drive's own DRAM/SLC cache may); never for direct I/O over a whole device",
    why="Buffered re-reads come from the page cache (a 1 GB test file on ext4 is read from RAM after its first pass). With "
    "direct=1 the page cache is out of the path, but a working set of a few GiB can sit in a drive's DRAM or SLC "
    "cache and a fresh region of a file, so it flatters the device.",
    fix="direct=1 and a data set of at least 2x RAM (or the whole device); drop caches between phases.",
    evidence="size x numjobs, RAM, direct",
    source="fio HOWTO size/invalidate; IOR tutorial on caching",
)
def cache_size(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        size = job.data_set_bytes
        if size is None or job.metadata or (job.direct and job.target_kind == "block" and job.given("offset") is None):
            continue  # a whole device read directly has no larger data set to offer
        if ctx.mem_total_bytes is None:
            yield r.not_evaluated(f"RAM size unknown; {job.name} touches {_gib(size)}", job.name)
        elif size < 2 * ctx.mem_total_bytes:
            evidence = {"distinct bytes": _gib(size), "RAM": _gib(ctx.mem_total_bytes), "direct": int(job.direct)}
            if job.direct:
                yield r.finding(
                    f"{job.name} works on {_gib(size)} with direct I/O: a drive's DRAM or SLC cache may "
                    "hold much of it",
                    job.name,
                    evidence,
                    level="info",
                )
            else:
                yield r.finding(
                    f"{job.name} touches {_gib(size)} through the page cache, under 2x RAM "
                    f"({_gib(2 * ctx.mem_total_bytes)})",
                    job.name,
                    evidence,
                )


@rule(
    id="FIO-LIBAIO-BUFFERED",
    family="method",
    level="high",
    needs="jobs",
    title="Async engine made synchronous by buffered I/O",
    applies="libaio and posixaio jobs",
    trigger="ioengine libaio/posixaio, direct != 1 and iodepth > 1",
    why="Linux only queues asynchronously with O_DIRECT; buffered libaio runs one I/O at a time, although fio's "
    "iodepth_level can still show the configured depth.",
    fix="direct=1, or ioengine=io_uring (which does buffered I/O asynchronously).",
    evidence="ioengine, direct, iodepth",
    source="fio HOWTO ioengine libaio",
)
def libaio_buffered(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        if job.engine in ("libaio", "posixaio") and not job.direct and job.iodepth > 1:
            yield r.finding(
                f"{job.name}: {job.engine} with buffered I/O is synchronous",
                job.name,
                _opts(job, "ioengine", "direct", "iodepth"),
            )


@rule(
    id="FIO-SYNC-ENGINE-QD",
    family="method",
    level="high",
    needs="jobs",
    title="Synchronous engine keeps one I/O in flight per job",
    applies="sync, psync (fio's default), vsync, pvsync, pvsync2 jobs",
    trigger="iodepth > 1 (fio caps it at 1), or numjobs <= 4 for a bandwidth or IOPS test",
    why="A synchronous thread waits for each I/O before issuing the next; NVMe needs many in flight to reach its "
    "specification (psync at depth 1 gives about 1 GB/s from a drive rated for 7 GB/s).",
    fix="ioengine=io_uring or libaio with direct=1 and iodepth=32..128 for bandwidth, or more numjobs.",
    evidence="ioengine, iodepth, numjobs",
    source="fio HOWTO iodepth; fio backend.c 'queue depth will be capped at 1'",
)
def sync_engine_qd(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        if job.engine not in SYNC_ENGINES:
            continue
        if job.iodepth > 1:
            yield r.finding(
                f"{job.name} asks for iodepth={job.iodepth} from synchronous {job.engine}: fio caps it at 1",
                job.name,
                _opts(job, "ioengine", "iodepth", "numjobs"),
            )
        elif job.numjobs <= 4:
            yield r.finding(
                f"{job.name}: {job.engine} with {job.numjobs} job(s) keeps only {job.numjobs} I/O in flight",
                job.name,
                _opts(job, "ioengine", "iodepth", "numjobs"),
            )


@rule(
    id="FIO-QD1-ASYNC",
    family="method",
    level="medium",
    needs="jobs",
    title="Async engine at queue depth 1",
    applies="libaio, io_uring and other async engines",
    trigger="iodepth = 1 (explicit or default) and numjobs <= 2, unless the job's description says it measures latency",
    why="Depth 1 measures latency; spec sheets quote bandwidth and IOPS at high queue depth.",
    fix="iodepth=32 or more for bandwidth/IOPS; keep depth 1 only for a latency test and call it that.",
    evidence="ioengine, iodepth, numjobs",
    source="fio HOWTO iodepth",
)
def qd1_async(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        declared = "latency" in (job.given("description") or "").lower()
        if job.engine in ASYNC_ENGINES and job.iodepth == 1 and job.numjobs <= 2 and not declared:
            yield r.finding(
                f"{job.name}: {job.engine} at iodepth 1", job.name, _opts(job, "ioengine", "iodepth", "numjobs")
            )


@rule(
    id="FIO-SHORT-RUN",
    family="method",
    level="medium",
    needs="jobs",
    title="Run too short to trust",
    applies="every job",
    trigger="measured runtime < 5 s, or time_based with runtime < 5 s (not for file create/stat/delete "
    "jobs: MD-SHORT-PHASE; not for a point fio's ss= or --stop-when-known ended once its number was known)",
    why="Start-up, cache and firmware transients dominate and variance cannot be judged; without time_based fio stops "
    "when size is done, so a small file gives a short run.",
    fix="time_based=1 and runtime=60 or more (long enough to reach steady state for writes).",
    evidence="runtime (ms), time_based",
    source="fio HOWTO runtime/time_based",
)
def short_run(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        if job.metadata:
            continue  # a file operation's phase: MD-SHORT-PHASE
        if job.result is not None:
            if _stopped_by_design(job.result):
                continue  # short because its number was known: fio's ss= held, or --stop-when-known met its target
            runtimes = [d.runtime_ms for d in job.result.directions.values() if d.runtime_ms]
            if runtimes and max(runtimes) < 5_000:
                yield r.finding(
                    f"{job.name} ran {max(runtimes) / 1000:.1f} s",
                    job.name,
                    {"runtime_ms": max(runtimes)},
                )
        elif job.time_based:
            seconds = job.runtime_seconds
            if seconds is not None and seconds < 5:
                yield r.finding(
                    f"{job.name} is set to run {seconds:g} s", job.name, _opts(job, "runtime", "time_based")
                )


def _stopped_by_design(result: Result) -> bool:
    """Whether the point ended early on purpose: fio's steady-state criterion (`ss=`) held, or iolab's
    stopping (`--stop-when-known`) met its target. Its length was the method's answer, not a mistake."""
    return (result.steady is not None and result.steady.attained) or (
        result.stopping is not None and result.stopping.met
    )


@rule(
    id="MD-SHORT-PHASE",
    family="method",
    level="medium",
    needs="results",
    title="File operation phase too short to time",
    applies="file create/stat/delete jobs",
    trigger="measured runtime < 100 ms (fio's millisecond timing then worse than 1%)",
    why="fio times a job in whole milliseconds and its rate is operations / runtime: a phase of 4 ms is known to "
    "about 25%. A remove or stat pass over the files a create made in the same time often takes a fraction of it, "
    "because removing and stat-ing a file is cheaper than creating one.",
    fix="More files per thread: a longer --runtime makes the create make more (the metadata preset removes what it "
    "created); read the mean latency per operation, which every operation times, beside the rate.",
    evidence="runtime (ms), operations",
    source="fio HOWTO runtime; fio engines/fileoperations.c",
)
def short_phase(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.results:
        if not job.metadata or job.result is None:
            continue
        runtime = max((d.runtime_ms for d in job.result.directions.values()), default=0)
        operations = sum(d.total_ios for d in job.result.directions.values())
        if runtime < 100:
            precision = f"about {100 / runtime:.0f}%" if runtime else "no better than 100%"
            yield r.finding(
                f"{job.name} ran {runtime} ms ({operations} operations): its rate is timed to {precision}",
                job.name,
                {"runtime_ms": runtime, "operations": operations},
            )


@rule(
    id="FIO-NO-RAMP",
    family="method",
    level="low",
    needs="jobs",
    heuristic=True,
    title="No warm-up excluded from the numbers",
    applies="every job",
    trigger="ramp_time absent or 0 and runtime < 300 s (not for file create/stat/delete jobs)",
    why="The first seconds include cache warm-up and device transients; ramp_time lets performance settle before logging.",
    fix="ramp_time=5..30 (iolab measures the warm-up separately rather than hiding it).",
    evidence="ramp_time, runtime",
    source="fio HOWTO ramp_time",
)
def no_ramp(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        runtime = job.runtime_seconds
        if job.ramp_seconds == 0 and (runtime is None or runtime < 300) and not job.metadata:
            yield r.finding(f"{job.name} has no ramp_time", job.name, _opts(job, "ramp_time", "runtime"))


@rule(
    id="FIO-UNWRITTEN-READ",
    family="method",
    level="medium",
    needs="jobs",
    title="Reading blocks that may never have been written",
    applies="read jobs on raw block devices",
    trigger="a read job on /dev/... with no earlier job in the same set writing that device, unless most of 64 "
    "blocks read across the device when the run started held data (a device never sampled, as in lint, "
    "cannot be told apart)",
    why="SSDs return deallocated LBAs (after blkdiscard, nvme format, a new drive) without touching media: "
    "'completely fake (very high) IOPS'.",
    fix="Write the full region first (sequential fill, bs=1M), then read.",
    evidence="rw, filename, earlier writers",
    source="axboe/fio#719",
)
def unwritten_read(ctx: Context, r: Rule) -> Iterator[Finding]:
    written: set[str] = set()
    sampled = {t.path: t for t in ctx.snapshot.targets} if ctx.snapshot else {}
    for job in ctx.jobs:
        target = job.target_path or ""
        if job.target_kind == "block" and job.reads and not job.writes and target not in written:
            info = sampled.get(target)
            if info is None or info.blocks_sampled is None or info.blocks_with_data is None:
                yield r.finding(
                    f"{job.name} reads {target} with no fill before it", job.name, _opts(job, "rw", "filename")
                )
            elif 2 * info.blocks_with_data < info.blocks_sampled:
                zeros = info.blocks_sampled - info.blocks_with_data
                yield r.finding(
                    f"{job.name} reads {target}, where {zeros} of {info.blocks_sampled} blocks sampled "
                    "across the device are all zeros",
                    job.name,
                    {**_opts(job, "rw", "filename"), "blocks of zeros": f"{zeros} of {info.blocks_sampled}"},
                )
        if job.writes:
            written.add(target)


@rule(
    id="FIO-FILE-TARGET",
    family="method",
    level="low",
    needs="jobs",
    title="Measuring a file, not the device",
    applies="jobs whose filename/directory is not a block device",
    trigger="filename not under /dev, or directory= set (not for file create/stat/delete jobs, which measure the file system)",
    why="The file system is in the path (allocation, journal, extent layout, fragmentation) and the file covers a "
    "small, possibly cached, region of the device; compare with the raw device to separate the two.",
    fix="To characterise the drive, run on the raw device (reads only, or a scratch device); keep file tests for "
    "file-system questions.",
    evidence="filename or directory",
    source="fio HOWTO: filename, directory",
)
def file_target(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        if job.target_kind in ("file", "directory") and not job.metadata:
            yield r.finding(
                f"{job.name} measures a file ({job.target_path}), not a device", job.name, {"target": job.target_path}
            )


@rule(
    id="FIO-BUFFER-CONTENT",
    family="method",
    level="info",
    needs="jobs",
    title="Compressible or dedupable write buffers",
    applies="write jobs",
    trigger="zero_buffers, buffer_pattern, buffer_compress_percentage > 0 or dedupe_percentage > 0",
    why="Zeros and patterns compress to nothing on ZFS/btrfs compression, VDO, thin arrays and compressing SSDs.",
    fix="Leave fio's default random buffers (refill_buffers for certainty) unless compression is the question.",
    evidence="the buffer options",
    source="fio HOWTO zero_buffers/buffer_compress_percentage",
)
def buffer_content(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        hits: dict[str, str] = {
            k: job.given(k) or "1" for k in ("zero_buffers", "buffer_pattern") if job.given(k) is not None
        }
        hits |= {
            k: value
            for k in ("buffer_compress_percentage", "dedupe_percentage")
            if (value := job.given(k)) and value != "0"  # unset, empty and 0 all mean "off"
        }
        if job.writes and hits:
            yield r.finding(f"{job.name} writes compressible data", job.name, hits)


@rule(
    id="FIO-RATE-OR-THINKTIME",
    family="method",
    level="info",
    needs="jobs",
    title="Job is paced on purpose",
    applies="every job",
    trigger="rate, rate_iops, rate_min, thinktime or latency_target set",
    why="The numbers are capped or paced; do not compare them with device maxima.",
    fix="Remove pacing to measure capability.",
    evidence="the pacing options",
    source="fio HOWTO rate/thinktime",
)
def paced(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        hits = {
            k: job.given(k) for k in ("rate", "rate_iops", "rate_min", "thinktime", "latency_target") if job.given(k)
        }
        if hits:
            yield r.finding(f"{job.name} is rate-limited or paced", job.name, hits)


@rule(
    id="FIO-VERIFY",
    family="method",
    level="low",
    needs="jobs",
    title="Verification during a performance run",
    applies="every job",
    trigger="verify set (and not 0)",
    why="Checksumming costs CPU and verification reads back what was written.",
    fix="Verify in a separate run.",
    evidence="verify",
    source="fio HOWTO verify",
)
def verify(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        if (job.given("verify") or "0") not in ("0", "null"):
            yield r.finding(f"{job.name} verifies ({job.given('verify')})", job.name, {"verify": job.given("verify")})


@rule(
    id="FIO-UNPINNED",
    family="method",
    level="medium",
    needs="snapshot+jobs",
    title="Placement not controlled on a multi-node host",
    applies="hosts with more than one NUMA node",
    trigger="no cpus_allowed, cpumask or numa_cpu_nodes in the job",
    why="The scheduler may run fio far from the device's node; results then vary with where threads land.",
    fix="Pin each device's job to its node: numa_cpu_nodes=<node>, numa_mem_policy=bind:<node>.",
    evidence="NUMA nodes, the job's placement options",
    source="fio HOWTO numa_cpu_nodes",
)
def unpinned(ctx: Context, r: Rule) -> Iterator[Finding]:
    nodes = ctx.snapshot.numa_nodes if ctx.snapshot else {}
    if len(nodes) < 2:
        return
    for job in ctx.jobs:
        if not any(job.given(k) for k in ("cpus_allowed", "cpumask", "numa_cpu_nodes")):
            yield r.finding(f"{job.name} is not pinned on a {len(nodes)}-node host", job.name, {"nodes": len(nodes)})


@rule(
    id="FIO-CPU-BOUND",
    family="method",
    level="high",
    needs="results",
    heuristic=True,
    title="fio's own threads are CPU-saturated",
    applies="results",
    trigger="(usr_cpu + sys_cpu) per job >= 70% of one CPU; not for file create/stat/delete jobs, "
    "which are system calls only",
    why="The submitting thread, not the device, is the bottleneck; high sys time points at per-I/O kernel cost "
    "(IOMMU, mitigations, debug kernel, dm-crypt).",
    fix="More numjobs, io_uring with fixedbufs/registerfiles/sqthread_poll, larger bs; check IOMMU-* and MITIG-*.",
    evidence="usr and sys CPU per job",
    source="fio JSON usr_cpu/sys_cpu",
)
def cpu_bound(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.results:
        res = job.result
        if res is None or not res.jobs or job.metadata:
            continue
        per_job = res.cpu / res.jobs
        if per_job >= 70:
            yield r.finding(
                f"{job.name}: fio threads at {per_job:.0f}% CPU each",
                job.name,
                {"usr": f"{res.usr_cpu:.1f}%", "sys": f"{res.sys_cpu:.1f}%", "jobs": res.jobs},
            )


@rule(
    id="FIO-ERRORS",
    family="method",
    level="high",
    needs="results",
    title="fio reported errors",
    applies="results",
    trigger="the fio error code != 0",
    why="I/Os failed; the bandwidth figure is not meaningful.",
    fix="Read fio's output for the error and fix it before comparing numbers.",
    evidence="error code",
    source="fio JSON error",
)
def errors(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.results:
        if job.result and job.result.error:
            yield r.finding(
                f"{job.name} ended with fio error {job.result.error}", job.name, {"error": job.result.error}
            )
