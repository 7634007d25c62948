"""CPU power and environment rules (catalogue B4, B12)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from iolab.doctor.rule import LEVELS, Context, Rule, rule
from iolab.models import Finding
from iolab.models.host_settings import host_setting

GOVERNOR = host_setting("governor")


@rule(
    id=GOVERNOR.rule or "",
    family="cpu",
    level="medium",
    needs="snapshot",
    title="CPU frequency governor is not 'performance'",
    applies="hosts with cpufreq (absent in most VMs)",
    trigger="any cpufreq policy's scaling_governor != performance",
    why="Storage completions land on mostly idle cores; a powersave or schedutil governor keeps them slow and adds "
    "ramp-up latency, which shows most at queue depth 1.",
    fix=GOVERNOR.advice,
    evidence="governors and how many policies use each, the scaling driver",
    source="kernel Documentation/admin-guide/pm/cpufreq.rst",
)
def governor(ctx: Context, r: Rule) -> Iterator[Finding]:
    snap = ctx.snapshot
    if snap is None:
        return
    if not snap.governors:
        yield r.not_evaluated("no cpufreq policies (VM or firmware-controlled frequency)", "host")
        return
    counts = Counter(snap.governors.values())
    levels = {g: level for g in counts if (level := GOVERNOR.judged(g))}
    if levels:
        yield r.finding(
            "CPU governor " + ", ".join(f"{g} on {counts[g]} of {len(snap.governors)} policies" for g in levels),
            "host",
            {"governors": dict(counts), "driver": snap.cpufreq_driver},
            level=min(levels.values(), key=lambda level: LEVELS[level].rank),  # the most serious
        )


@rule(
    id="ENV-VM",
    family="env",
    level="info",
    needs="snapshot",
    title="Running inside a virtual machine",
    applies="any host",
    trigger="the CPU flags include 'hypervisor'",
    why="PCIe link, IOMMU, cpufreq and rotational information in a guest is emulated or missing, so several rules "
    "cannot be evaluated; host-side caching can inflate results.",
    fix="Benchmark on bare metal to characterise devices; in a VM, check the hypervisor's cache mode (cache=none).",
    evidence="/proc/cpuinfo flags",
    source="iolab diagnosis catalogue ENV-VM",
)
def vm(ctx: Context, r: Rule) -> Iterator[Finding]:
    if ctx.snapshot and ctx.snapshot.hypervisor:
        yield r.finding("this host is a virtual machine", "host", {"cpu": ctx.snapshot.cpu_model})
