"""SPDK / NVMe-oF rules (catalogue B16)."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding


@rule(
    id="SPDK-DRIVER",
    family="spdk",
    level="info",
    needs="snapshot",
    title="NVMe device owned by a user-space driver",
    applies="NVMe PCI functions (class 0x010802)",
    trigger="bound to vfio-pci, uio_pci_generic or igb_uio",
    why="Kernel block-layer, NUMA and SMART rules cannot see this device; SPDK's own RPCs hold its state.",
    fix="Use SPDK's rpc.py (nvmf_get_stats, thread_get_stats) for its settings.",
    evidence="PCI address and driver",
    source="SPDK setup.sh driver binding",
)
def driver(ctx: Context, r: Rule) -> Iterator[Finding]:
    for address, name in (ctx.snapshot.userspace_nvme if ctx.snapshot else {}).items():
        yield r.finding(f"NVMe {address} is bound to {name}", address, {"driver": name})


@rule(
    id="SPDK-QD-SWEEP",
    family="spdk",
    level="medium",
    needs="results",
    title="NVMe-oF / SPDK result at a single queue depth",
    applies="jobs with the spdk engine or on NVMe-over-fabrics devices",
    trigger="all such results use one iodepth",
    why="Target results rise and then fall with queue depth once shared buffers run out (SPDK's num_shared_buffers); one point hides that.",
    fix="Sweep iodepth (1..256) and target cores, re-sizing num_shared_buffers with them.",
    evidence="the single iodepth used",
    source="spdk/spdk#3296; Mellanox SPDK I/O pacing study",
)
def qd_sweep(ctx: Context, r: Rule) -> Iterator[Finding]:
    fabric = [
        j
        for j in ctx.results
        if j.engine.startswith("spdk") or ((d := ctx.device_of(j)) is not None and d.transport in ("tcp", "rdma", "fc"))
    ]
    depths = {j.iodepth for j in fabric}
    if fabric and len(depths) == 1:
        yield r.finding(f"{len(fabric)} fabric result(s), all at iodepth {depths.pop()}", "runs", {"jobs": len(fabric)})
