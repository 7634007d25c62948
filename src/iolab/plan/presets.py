"""Built-in plans: each a function returning a `Plan`, with no target.

The runner supplies targets. Defaults follow the methodology the project
stands for: libaio, time-based runs with a ramp; the runner adds direct I/O
where the target supports it, and reports numjobs clones separately so it
can sum and pool them itself. Durations at default settings come from
`iolab.plan.estimate`.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from iolab.errors import UserError
from iolab.fio.options import seconds_value
from iolab.models.plan import (
    LatencyCurve,
    MetadataScaling,
    Phases,
    Plan,
    Precondition,
    QdSearch,
    SteadyRounds,
    Workload,
)
from iolab.plan.matrix import expand, workload_name

DOUBLING_QD = tuple(2**i for i in range(9))  # 1..256
DOUBLING_THREADS = tuple(2**i for i in range(7))  # 1..64
BLOCK_SIZES = ("4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m", "4m")


def timed(runtime: float, ramp: float, **options: str | int) -> dict[str, str]:
    """Options of a time-based libaio O_DIRECT job, plus the given ones."""
    if runtime <= 0 or ramp < 0:
        raise UserError(f"runtime must be > 0 and ramp >= 0 seconds, got runtime={runtime}, ramp={ramp}")
    base = {
        "ioengine": "libaio",
        "time_based": "1",
        "runtime": seconds_value(runtime),
        "ramp_time": seconds_value(ramp),
    }
    return {**base, **{k: str(v) for k, v in options.items()}}


def quick(runtime: float = 8, ramp: float = 2) -> Plan:
    """Five points, about a minute: sequential and random throughput, QD1 latency."""
    points: list[tuple[str, dict[str, str | int]]] = [
        ("seqread-1m-qd32", dict(rw="read", bs="1m", iodepth=32, numjobs=1)),
        ("seqwrite-1m-qd32", dict(rw="write", bs="1m", iodepth=32, numjobs=1)),
        ("randread-4k-qd32-j4", dict(rw="randread", bs="4k", iodepth=32, numjobs=4)),
        ("randwrite-4k-qd32-j4", dict(rw="randwrite", bs="4k", iodepth=32, numjobs=4)),
        ("randread-4k-qd1", dict(rw="randread", bs="4k", iodepth=1, numjobs=1, description="latency at queue depth 1")),
    ]
    workloads = [Workload(name, timed(runtime, ramp, **opts)) for name, opts in points]
    return Plan(
        name="quick",
        workloads=workloads,
        rerun_disturbed=True,
        description="sequential 1 MiB and random 4 KiB throughput, 4 KiB QD1 latency",
    )


def array_read(runtime: float = 10, ramp: float = 2) -> Plan:
    """1 MiB sequential read at QD32 per device: the array bandwidth question of seed 000."""
    workloads = [Workload("seqread-1m-qd32", timed(runtime, ramp, rw="read", bs="1m", iodepth=32, numjobs=1))]
    return Plan(
        name="array-read", workloads=workloads, description="per-device and aggregate read bandwidth of an array"
    )


def qd_sweep(
    runtime: float = 10, ramp: float = 2, adaptive: bool = False, max_qd: int = 256, max_jobs: int = 16
) -> Plan:
    """4 KiB random read and 128 KiB sequential read over queue depth 1..max_qd.

    Adaptive: the points are chosen while running (see iolab.plan.adaptive);
    the plan then carries one QdSearch per workload and no fixed workloads:
    one job's depth curve around its knee, then numjobs doubling (up to
    `max_jobs`) while it pays, since one job's submission path can be the
    limit, then the peak over both.
    """
    bases = [
        Workload("randread-4k", timed(runtime, ramp, rw="randread", bs="4k", numjobs=1)),
        Workload("seqread-128k", timed(runtime, ramp, rw="read", bs="128k", numjobs=1)),
    ]
    description = "where queue depth stops paying: throughput and latency against QD"
    if adaptive:
        searches = [QdSearch(base=b, max_qd=max_qd, max_jobs=max_jobs) for b in bases]
        return Plan(name="qd-sweep", workloads=[], qd_searches=searches, description=description)
    depths = [str(q) for q in DOUBLING_QD if q <= max_qd]
    workloads = [w for b in bases for w in expand(b.name, b.options, {"iodepth": depths})]
    return Plan(name="qd-sweep", workloads=workloads, description=description)


def jobs_sweep(runtime: float = 10, ramp: float = 2, threads: Sequence[int] = DOUBLING_THREADS) -> Plan:
    """4 KiB random and 1 MiB sequential reads, QD1 per job, as the job count doubles 1..64."""
    counts = [str(n) for n in threads]
    workloads = [
        w
        for rw, bs in (("randread", "4k"), ("read", "1m"))
        for w in expand(f"{rw}-{bs}-qd1", timed(runtime, ramp, rw=rw, bs=bs, iodepth=1), {"numjobs": counts})
    ]
    return Plan(name="jobs-sweep", workloads=workloads, description="scaling with concurrent jobs (threads, clients)")


def bs_sweep(runtime: float = 10, ramp: float = 2, iodepth: int = 32) -> Plan:
    """Sequential and random reads over block sizes 4 KiB..4 MiB at one queue depth."""
    workloads = [
        w
        for rw in ("read", "randread")
        for w in expand(
            f"{rw}-qd{iodepth}", timed(runtime, ramp, rw=rw, iodepth=iodepth, numjobs=1), {"bs": list(BLOCK_SIZES)}
        )
    ]
    return Plan(name="bs-sweep", workloads=workloads, description="throughput and IOPS against block size")


def latency_curve(runtime: float = 10, ramp: float = 2, fractions: Sequence[float] | None = None) -> Plan:
    """Latency at 10..100% of the measured maximum 4 KiB random-read IOPS.

    The probe (unthrottled, QD32 x 4 jobs) measures the maximum; the runner
    then builds the rate-limited points with `latency_curve_workloads`.
    """
    probe = Workload("randread-4k-qd32-j4", timed(runtime, ramp, rw="randread", bs="4k", iodepth=32, numjobs=4))
    curve = LatencyCurve(probe=probe) if fractions is None else LatencyCurve(probe=probe, fractions=tuple(fractions))
    return Plan(
        name="latency-curve",
        workloads=[],
        latency_curve=curve,
        description="latency against offered load (10-100% of max IOPS)",
    )


def latency_curve_workloads(probe: Workload, max_iops: float, fractions: Sequence[float]) -> list[Workload]:
    """The probe rate-limited to each fraction of `max_iops` (total over all jobs).

    fio's rate_iops limits each job, so the total is divided by numjobs;
    the probe's queue depth is kept so every rate stays reachable.
    """
    if not max_iops > 0:
        raise UserError(f"latency curve: the probe measured {max_iops} IOPS; nothing to scale")
    jobs = probe.job.numjobs
    workloads = []
    for fraction in fractions:
        if not 0 < fraction <= 1:
            raise UserError(f"latency curve: load fraction {fraction} is outside (0, 1]")
        per_job = max(1, math.floor(max_iops * fraction / jobs))
        name = workload_name(probe.name, {"load": f"{round(fraction * 100)}pct"})
        workloads.append(Workload(name, {**probe.options, "rate_iops": str(per_job)}, probe.target))
    return workloads


# What a metadata phase is called, and the fio engine that does it: one operation per file.
METADATA_OPERATIONS = (("create", "filecreate"), ("stat", "filestat"), ("remove", "filedelete"))
# The names every phase of one thread count addresses: job J's files are iolab-md.J.0, iolab-md.J.1, ...
METADATA_FILE_FORMAT = "iolab-md.$jobnum.$filenum"


def metadata(
    threads: Sequence[int] = DOUBLING_THREADS, files_per_thread: int | None = None, runtime: float = 10
) -> Plan:
    """File create, stat and remove rates (as mdtest reports them) as threads double 1..64.

    The file count of each thread count comes from a short calibration while
    running (`MetadataScaling`), so every phase lasts about `runtime`;
    `files_per_thread` fixes it instead. Files are empty, as mdtest's are by
    default: a ceiling for creating and removing files.
    """
    if runtime <= 0:
        raise UserError(f"runtime must be > 0 seconds, got {runtime}")
    counts = tuple(int(n) for n in threads)
    if not counts or any(n < 1 for n in counts):
        raise UserError(f"metadata: thread counts must be whole numbers from 1, got {list(threads)}")
    if files_per_thread is not None and files_per_thread < 1:
        raise UserError(f"metadata: files_per_thread must be at least 1, got {files_per_thread}")
    return Plan(
        name="metadata",
        workloads=[],
        metadata=MetadataScaling(threads=counts, runtime=runtime, files_per_thread=files_per_thread),
        description="file create/stat/remove rates against thread count",
    )


def metadata_workload(operation: str, threads: int, files: int, runtime: float) -> Workload:
    """One metadata phase for `threads` threads on `files` files each, bounded by `runtime`.

    fio reads these options as follows (fio 3.33, its HOWTO and engines/fileoperations.c):
    - create_on_open=1: fio does not lay files out before timing starts. Without it, filestat and
      filedelete first write `filesize` bytes into every file (64 threads x 1000 files took longer
      than a minute here), and filecreate's creates would happen at set-up, untimed;
    - file_service_type=sequential: each thread works through its files in order, so the files a
      cut-short create made are job J's first ones, which the later phases address;
    - openfiles=1: one file open per thread at a time, as a create loop holds them;
    - stat is time-based: stat of the same files round after round for `runtime` (one pass over
      the files a create made in the same time takes milliseconds); create and remove cannot be
      (a second pass would open existing files or unlink missing ones), fio's runtime caps them.
    """
    engine = dict(METADATA_OPERATIONS)[operation]
    options = {
        "ioengine": engine,
        "thread": "1",
        "numjobs": str(threads),
        "nrfiles": str(files),
        "filesize": "4k",
        "openfiles": "1",
        "create_on_open": "1",
        "file_service_type": "sequential",
        "filename_format": METADATA_FILE_FORMAT,
        "runtime": seconds_value(runtime),
    }
    if operation == "stat":
        options["time_based"] = "1"
    return Workload(workload_name(operation, {"numjobs": str(threads)}), options)


def calibration_seconds(scaling: MetadataScaling) -> float:
    """How long a thread count's calibration create runs: a quarter of a phase, at most
    `calibration_s`, at least 0.25 s (fio reports its runtime in milliseconds)."""
    return max(0.25, min(scaling.calibration_s, scaling.runtime / 4))


# Files per thread below which a create says little (fio's runtime in ms times so few creates poorly).
MIN_FILES_PER_THREAD = 16


def metadata_files(created_per_second: float, scaling: MetadataScaling, threads: int, room: int | None = None) -> int:
    """Files per thread for a create to last about `scaling.runtime`, from a calibration's rate per thread.

    20% above the calibrated rate, because a create often speeds up once it runs (the calibration
    includes its start); fio's runtime ends it if it would last longer. At most `max_files` for all
    threads together, and at most `room`, the files the file system can still hold (its free inodes
    and space: 200,000 files on a 700 MB ext4 ran out of inodes at file 44,820); at least 16 per
    thread where the room allows.
    """
    if scaling.files_per_thread is not None:
        return scaling.files_per_thread
    wanted = math.ceil(max(created_per_second, 0.0) * scaling.runtime * 1.2)
    cap = min(scaling.max_files, room if room is not None else scaling.max_files) // threads
    return max(1, min(max(MIN_FILES_PER_THREAD, wanted), cap))


def ssd_steady(round_runtime: float = 60, max_rounds: int = 25) -> Plan:
    """SNIA-PTS-style: purge (discard), write the capacity twice, then rounds to steady state.

    Each round is 4 KiB random write at QD32 x 4 jobs (the PTS enterprise
    IOPS tracking point); the runner judges rounds with
    `iolab.plan.steady.steady_state` and reports the steady window, or that
    it was not reached by `max_rounds`.
    """
    precondition = Workload(
        "precondition-seqwrite-128k-2x",
        {
            "ioengine": "libaio",
            "direct": "1",
            "rw": "write",
            "bs": "128k",
            "iodepth": "32",
            "numjobs": "1",
            "loops": "2",
        },
    )
    round_workload = Workload(
        "round-randwrite-4k-qd32-j4", timed(round_runtime, 0, rw="randwrite", bs="4k", iodepth=32, numjobs=4)
    )
    return Plan(
        name="ssd-steady",
        workloads=[],
        description="SSD write IOPS at steady state (SNIA PTS style)",
        phases=Phases(precondition=Precondition(precondition, scope="once", discard_first=True)),
        steady_rounds=SteadyRounds(round=(round_workload,), max_rounds=max_rounds),
    )


@dataclass(frozen=True)
class Preset:
    """A registry entry: `iolab presets` prints name, what it measures and a duration."""

    name: str
    measures: str
    build: Callable[..., Plan]


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("quick", "sequential 1 MiB and random 4 KiB read/write throughput, 4 KiB QD1 latency", quick),
        Preset(
            "array-read",
            "1 MiB sequential read per device of an array (with --devices: together, alone, subsets)",
            array_read,
        ),
        Preset(
            "qd-sweep", "throughput and latency vs queue depth 1-256 (4 KiB random, 128 KiB sequential read)", qd_sweep
        ),
        Preset("jobs-sweep", "scaling with job count 1-64 (4 KiB random, 1 MiB sequential read, QD1 each)", jobs_sweep),
        Preset("bs-sweep", "throughput vs block size 4 KiB-4 MiB (sequential and random read, QD32)", bs_sweep),
        Preset("latency-curve", "latency at 10-100% of the measured maximum 4 KiB random-read IOPS", latency_curve),
        Preset("metadata", "file create/stat/remove rates vs threads 1-64 (like mdtest)", metadata),
        Preset("ssd-steady", "SSD random-write IOPS at steady state (purge, 2x precondition, PTS rounds)", ssd_steady),
    )
}


def preset(name: str, **settings: object) -> Plan:
    """The preset `name` built with `settings`; an unknown name is a UserError listing the choices."""
    if name not in PRESETS:
        raise UserError(f"no preset {name!r}; choose one of: {', '.join(PRESETS)}")
    build = PRESETS[name].build
    takes = inspect.signature(build).parameters
    unknown = [key for key in settings if key not in takes]
    if unknown:
        options = [f"--{key}" for key in ("runtime", "ramp") if key in takes]
        raise UserError(
            f"the {name} preset has no --{unknown[0]} setting; "
            + (f"it takes {' and '.join(options)}" if options else "drop it")
        )
    return build(**settings)
