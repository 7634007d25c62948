"""NUMA placement rules (catalogue B7)."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, JobView, Rule, rule
from iolab.models import Finding


def cpu_set(cpulist: str) -> set[int]:
    """CPUs of a list such as `0-31,64-95`."""
    cpus: set[int] = set()
    for part in cpulist.replace(" ", "").split(","):
        if part:
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def _job_cpus(job: JobView, nodes: dict[str, str]) -> set[int]:
    """The CPUs a job is pinned to (`cpus_allowed`, else the CPUs of its `numa_cpu_nodes`); empty when unpinned."""
    if job.given("cpus_allowed"):
        return cpu_set(job.given("cpus_allowed") or "")
    wanted = cpu_set(job.given("numa_cpu_nodes") or "")
    return set().union(*(cpu_set(nodes.get(f"node{n}", "")) for n in wanted))


@rule(
    id="NUMA-REMOTE",
    family="numa",
    level="medium",
    needs="snapshot+jobs",
    title="fio pinned away from the device's NUMA node",
    applies="hosts with more than one NUMA node and a device with a known node",
    trigger="the job's cpus_allowed / numa_cpu_nodes share no CPU with the device's node",
    why="DMA lands in memory remote to the consuming CPU and completions cross the socket interconnect.",
    fix="numa_cpu_nodes=<node> and numa_mem_policy=bind:<node> per device job, or numactl --cpunodebind --membind.",
    evidence="device node and its CPUs, the job's CPUs",
    source="fio HOWTO numa_cpu_nodes/cpus_allowed; axboe/fio#141",
)
def remote(ctx: Context, r: Rule) -> Iterator[Finding]:
    nodes = ctx.snapshot.numa_nodes if ctx.snapshot else {}
    if len(nodes) < 2:
        return
    for job in ctx.jobs:
        device = ctx.device_of(job)
        if device is None or device.numa_node is None or device.numa_node < 0:
            continue
        local = cpu_set(nodes.get(f"node{device.numa_node}", ""))
        used = _job_cpus(job, nodes)  # empty for an unpinned job: FIO-UNPINNED speaks about those
        if used and not used & local:
            yield r.finding(
                f"{job.name} runs on CPUs remote to {device.name} (node {device.numa_node})",
                device.name,
                {
                    "device node": device.numa_node,
                    "node cpus": nodes.get(f"node{device.numa_node}"),
                    "job cpus": job.given("cpus_allowed") or f"nodes {job.given('numa_cpu_nodes')}",
                },
            )
