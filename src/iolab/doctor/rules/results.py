"""Result-plausibility rules (catalogue Part D): numbers that cannot be true, or say why."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from iolab.doctor.rule import Context, JobView, Rule, rule
from iolab.doctor.rules.pcie import gbs, link_bandwidths
from iolab.models import Finding


def _total_bw(job: JobView) -> float:
    return sum(d.bw_bytes for d in job.result.directions.values()) if job.result else 0.0


@rule(
    id="RES-ABOVE-LINK", family="results", level="critical", needs="snapshot+results",
    title="Faster than the PCIe link can carry",
    applies="results on a device whose link ceiling is known",
    trigger="read or write bandwidth > 1.02 x the hard ceiling of the narrowest current link",
    why="Physically impossible: the data came from the page cache, a tiny cached working set, compression, "
        "or the target is not the device you think.",
    fix="Check FIO-BUFFERED, FIO-CACHE-SIZE, FIO-UNWRITTEN-READ, FIO-BUFFER-CONTENT and the target mapping.",
    evidence="measured, link, ceiling",
    source="PCIe per-lane rates (kernel PCIE_SPEED2MBS_ENC)",
)
def above_link(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job, device, limit, ddir, d, ceiling in link_bandwidths(ctx):
        if d.bw_bytes > 1.02 * ceiling:
            yield r.finding(f"{job.name}: {ddir} {gbs(d.bw_bytes)} exceeds the {gbs(ceiling)} link of {device.name}",
                            device.name, {"measured": gbs(d.bw_bytes), "link": f"{limit.address} {limit.describe()}",
                                          "ceiling": gbs(ceiling)})


def _shape(job: JobView, drop: tuple[str, ...]) -> tuple:
    """Everything that defines a job except the options named in `drop`."""
    keep = {k: v for k, v in job.options.items() if k not in drop + ("name", "rw", "readwrite")}
    return (job.target_path, tuple(sorted(keep.items())))


@rule(
    id="RES-WRITE-GT-READ", family="results", level="medium", needs="results",
    title="Writes faster than reads",
    applies="pairs of results alike except for read vs write",
    trigger="write bandwidth > 1.2 x read bandwidth with the same pattern, bs, depth and target",
    why="Writes landing in a cache (page cache without end_fsync, device DRAM/SLC, async export) while reads go to "
        "media; reference case 3 saw write 3x read.",
    fix="direct=1, end_fsync=1, longer writes (past the SLC cache).",
    evidence="read and write bandwidth of the pair",
    source="iolab seed 003",
)
def write_gt_read(ctx: Context, r: Rule) -> Iterator[Finding]:
    groups: dict[tuple, dict[str, JobView]] = defaultdict(dict)
    for job in ctx.results:
        kind = {"read": "seq-read", "write": "seq-write", "randread": "rand-read", "randwrite": "rand-write"}.get(job.rw)
        if kind:
            groups[(_shape(job, ()), kind.split("-")[0])][kind.split("-")[1]] = job
    for pair in groups.values():
        if "read" in pair and "write" in pair:
            rd = pair["read"].result.directions.get("read") if pair["read"].result else None
            wr = pair["write"].result.directions.get("write") if pair["write"].result else None
            if rd and wr and rd.bw_bytes > 0 and wr.bw_bytes > 1.2 * rd.bw_bytes:
                yield r.finding(f"{pair['write'].name} writes {wr.bw_bytes / rd.bw_bytes:.1f}x faster than "
                                f"{pair['read'].name} reads", pair["write"].name,
                                {"read": gbs(rd.bw_bytes), "write": gbs(wr.bw_bytes)})


@rule(
    id="RES-NONMONOTONIC-SCALING", family="results", level="high", needs="results", heuristic=True,
    title="More parallelism, less bandwidth",
    applies="results that differ only in numjobs, iodepth or the number of devices (filename list)",
    trigger="aggregate bandwidth drops by more than 5% when the parameter grows",
    why="Check in order: CPU saturation (FIO-CPU-BOUND; per-I/O cost from IOMMU, mitigations, debug kernel), a shared "
        "PCIe uplink, NUMA placement. Reference case 1: 30 SSDs gave 127 GB/s, 24 gave 132.",
    fix="Sweep per NUMA node and per uplink; fix per-I/O CPU cost first, then re-run the sweep.",
    evidence="parameter values and their bandwidth",
    source="iolab seed 000; heuristic 5% tolerance",
)
def nonmonotonic(ctx: Context, r: Rule) -> Iterator[Finding]:
    for param in ("numjobs", "iodepth", "devices"):
        groups: dict[tuple, list[tuple[int, JobView]]] = defaultdict(list)
        for job in ctx.results:
            if param == "devices":
                value = len((job.get("filename") or "").split(":"))
                key = (job.rw, tuple(sorted((k, v) for k, v in job.options.items() if k not in ("filename", "name"))))
            else:
                value = job.numjobs if param == "numjobs" else job.iodepth
                key = (job.rw, _shape(job, (param,)))
            groups[key].append((value, job))
        for points in groups.values():
            points.sort(key=lambda p: p[0])
            best_value, best_bw = None, 0.0
            for value, job in points:
                bw = _total_bw(job)
                if best_value is not None and value > best_value and bw < 0.95 * best_bw:
                    yield r.finding(f"{param}={value} gives {gbs(bw)}, less than {gbs(best_bw)} at {param}={best_value}",
                                    job.name, {param: f"{best_value} -> {value}", "bandwidth": f"{gbs(best_bw)} -> {gbs(bw)}"})
                    break
                if bw > best_bw:
                    best_value, best_bw = value, bw
