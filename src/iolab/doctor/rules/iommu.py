"""IOMMU rules (catalogue B2): DMA translation and its invalidation cost per I/O."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding

_FIX = (
    "A/B test, weighing isolation: iommu.strict=0 (lazy invalidation, keeps translation) or iommu=pt "
    "(identity for host-owned devices; amd_iommu=pt is not a valid option); amd_iommu=off/intel_iommu=off "
    "only as a diagnostic."
)


def _nvme_domains(ctx: Context, r: Rule) -> Iterator[tuple[str, str] | Finding]:
    """(device, IOMMU domain type) for PCIe NVMe devices while an IOMMU is active."""
    snap = ctx.snapshot
    if snap is None or not (snap.iommu_units or snap.iommu_group_types):
        return
    for device in ctx.devices():
        if not device.is_nvme or device.pcie is None or device.transport not in (None, "pcie"):
            continue
        if device.pcie.iommu_type is None:
            yield r.not_evaluated(f"IOMMU domain type of {device.name} ({device.pcie.address}) unreadable", device.name)
        else:
            yield device.name, device.pcie.iommu_type


@rule(
    id="IOMMU-STRICT",
    family="iommu",
    level="high",
    needs="snapshot",
    title="IOMMU in strict (synchronous) invalidation mode",
    applies="PCIe NVMe devices behind an active IOMMU",
    trigger="the device's IOMMU group type is DMA (not DMA-FQ), or the command line has iommu.strict=1",
    why="Every unmap waits for an IOTLB invalidation; one measurement on 8 NVMe drives gave 16.5 M IOPS passthrough, "
    "16.4 M lazy and 2.8 M strict. Some distribution kernels build with strict as the default.",
    fix=_FIX,
    evidence="group type per device, IOMMU units, cmdline iommu tokens",
    source="kernel sysfs-kernel-iommu_groups (type DMA/DMA-FQ/identity); NVIDIA/NV-Kernels#182",
)
def strict(ctx: Context, r: Rule) -> Iterator[Finding]:
    snap = ctx.snapshot
    if snap is None:  # _nvme_domains yields nothing without a snapshot either
        return
    cmdline = (snap.cmdline or "").split()
    host = _host_evidence(snap.iommu_units, cmdline)
    for item in _nvme_domains(ctx, r):
        if isinstance(item, Finding):
            yield item
        elif item[1] == "DMA" or "iommu.strict=1" in cmdline:
            yield r.finding(
                f"{item[0]} DMA goes through a strict IOMMU domain", item[0], {"group type": item[1], **host}
            )


@rule(
    id="IOMMU-TRANSLATED",
    family="iommu",
    level="info",
    needs="snapshot",
    title="NVMe DMA is translated by the IOMMU (lazy mode)",
    applies="PCIe NVMe devices behind an active IOMMU",
    trigger="the device's IOMMU group type is DMA-FQ (escalates when a job is CPU-bound or above ~1 M IOPS)",
    why="Each I/O maps and unmaps its buffers; the CPU cost shows at high IOPS and with many devices. On a 30-SSD "
    "server, amd_iommu=off (with mitigations=off) lifted reads from 113 to 124 GB/s and halved CPU use.",
    fix=_FIX,
    evidence="group type per device and the cmdline",
    source="kernel Documentation/ABI/testing/sysfs-kernel-iommu_groups",
)
def translated(ctx: Context, r: Rule) -> Iterator[Finding]:
    busy = _busy(ctx)
    for item in _nvme_domains(ctx, r):
        if not isinstance(item, Finding) and item[1] == "DMA-FQ":
            yield r.finding(
                f"{item[0]} DMA is translated (lazy IOMMU)",
                item[0],
                {"group type": item[1]},
                level="medium" if busy else None,
            )


def _busy(ctx: Context) -> bool:
    """Where translation's cost shows: a job CPU-bound (70% of a CPU per job or more), or above 1 M IOPS."""
    results = [j.result for j in ctx.results if j.result]
    cpu_bound = any(result.jobs and result.cpu / result.jobs >= 70 for result in results)
    return cpu_bound or any(d.iops > 1e6 for result in results for d in result.directions.values())


def _host_evidence(units: list[str], cmdline: list[str]) -> dict[str, str]:
    """The host's side of a strict domain: its IOMMU units and the command line's iommu tokens."""
    return {
        "IOMMU": ",".join(units) or "?",
        "cmdline iommu": " ".join(t for t in cmdline if "iommu" in t) or "(none)",
    }
