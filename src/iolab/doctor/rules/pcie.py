"""PCIe link rules (catalogue B1): the bus as a ceiling on what a device can move."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.quotes import quote
from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding, units
from iolab.models.snapshot import BlockDevice, pcie_generation


def _width(lanes: int | None) -> str:
    """A link's width as its evidence shows it (PciPort.describe): "?" where it was not read, never "None"."""
    return "?" if lanes is None else str(lanes)


def gbs(value: float | None) -> str:
    """Bandwidth as a person reads it: GB/s from 1 GB/s (link ceilings), MB/s below (a slow result)."""
    if not value:
        return "?"
    return f"{value / 1e9:.2f} GB/s" if value >= 1e9 else f"{units.mb_per_s(value)} MB/s"


def _pcie_devices(ctx: Context, r: Rule) -> Iterator[BlockDevice | Finding]:
    """Devices with a readable PCIe link; a NOT_EVALUATED Finding for the others."""
    for device in ctx.devices():
        if device.transport not in (None, "pcie"):
            continue
        if device.pcie is None or device.pcie.current_gts is None or device.pcie.max_gts is None:
            where = device.pcie.address if device.pcie else "no PCI function in its sysfs path"
            yield r.not_evaluated(
                f"no PCIe link attributes for {device.name} ({where}; virtual or non-PCIe device)", device.name
            )
            continue
        yield device


@rule(
    id="PCIE-LINK-DEGRADED",
    family="pcie",
    level="high",
    needs="snapshot",
    title="PCIe link trained below the device's capability",
    applies="a PCIe endpoint with readable link attributes",
    trigger="current_link_speed < max_link_speed or current_link_width < max_link_width",
    why="The device negotiated fewer GT/s or lanes than it supports, so its bandwidth ceiling is the degraded link "
    "(a Gen4 x4 SSD at Gen3 x2 tops out at 1.97 GB/s). Some devices drop speed when idle (ASPM): re-check under load.",
    fix="Reseat the device or riser, check the BIOS slot speed (Auto, not Gen3), check the slot is wired for x4 "
    "(M.2 slots share lanes), update firmware, look at AER counters.",
    evidence="endpoint address, current vs capable speed and width, ceilings in GB/s",
    source="kernel drivers/pci/pci.h PCIE_SPEED2MBS_ENC; lspci LnkSta (downgraded)",
)
def link_degraded(ctx: Context, r: Rule) -> Iterator[Finding]:
    for item in _pcie_devices(ctx, r):
        if isinstance(item, Finding):
            yield item
            continue
        port = item.pcie
        assert port is not None and port.current_gts is not None and port.max_gts is not None  # _pcie_devices'
        # A width is judged only where both are read: an unknown one is no narrower link (it read "xNone").
        now, capable = port.current_width, port.max_width
        narrower = now is not None and capable is not None and now < capable
        if port.current_gts < port.max_gts or narrower:
            yield r.finding(
                f"{item.name} runs at Gen{pcie_generation(port.current_gts)} x{_width(now)}, "
                f"capable of Gen{pcie_generation(port.max_gts)} x{_width(capable)}",
                item.name,
                {
                    "endpoint": port.address,
                    "current": port.describe(),
                    "capable": port.describe(current=False),
                    "ceiling now": gbs(port.current_ceiling),
                    "ceiling capable": gbs(port.capable_ceiling),
                },
            )


@rule(
    id="PCIE-SLOT-LIMITED",
    family="pcie",
    level="high",
    needs="snapshot",
    title="A slower upstream link limits the device",
    applies="a PCIe endpoint with readable upstream bridges",
    trigger="a bridge above the device is capable of less than the device (its LnkCap ceiling, not its trained link: "
    "a port that trained down with a degraded device is PCIE-LINK-DEGRADED's case)",
    why="The device can do more, but a root port, switch port or chipset uplink above it runs at a lower "
    "generation or width, and every byte crosses that link.",
    fix="Move the SSD to a CPU-attached slot of the right generation; enable Gen4/Gen5 in the BIOS; "
    "M.2 slots behind the chipset share its uplink.",
    evidence="the limiting port, its link, and the ceiling compared with the device's",
    source='kernel drivers/pci/pci.c __pcie_print_link_status ("limited by ... link at")',
)
def slot_limited(ctx: Context, r: Rule) -> Iterator[Finding]:
    for item in _pcie_devices(ctx, r):
        if isinstance(item, Finding):
            continue  # PCIE-LINK-DEGRADED already reports the unreadable endpoint
        capable = item.pcie.capable_ceiling if item.pcie else None
        # (ceiling, port) of each bridge known to be capable of less than the device; one of unknown capability
        # cannot be said to limit it
        limits = [(c, p) for p in item.upstream if (c := p.capable_ceiling) and capable and c < capable]
        if limits:
            ceiling, worst = min(limits, key=lambda limit: limit[0])
            yield r.finding(
                f"{item.name} is limited to {gbs(ceiling)} by upstream port {worst.address}",
                item.name,
                {
                    "limiting port": worst.address,
                    "its capability": worst.describe(current=False),
                    "port ceiling": gbs(ceiling),
                    "device capable": gbs(capable),
                },
            )


def link_bandwidths(ctx: Context) -> Iterator[tuple]:
    """(job, device, link, direction, its result, ceiling bytes/s) for every result on a device
    whose PCIe link ceiling is known: what the ceiling and above-link rules compare."""
    for job in ctx.results:
        device = ctx.device_of(job)
        limit = device.link_limit if device else None
        if device is None or limit is None or job.result is None:
            continue
        ceiling = limit.current_ceiling or 0.0
        for ddir, d in job.result.directions.items():
            yield job, device, limit, ddir, d, ceiling


@rule(
    id="PCIE-CEILING-HIT",
    family="pcie",
    level="info",
    needs="snapshot+results",
    title="Result explained by the PCIe link",
    applies="a result on a device whose link ceiling is known",
    trigger="read or write bandwidth >= 0.85 x the hard ceiling of the narrowest current link",
    why="The device is running at the wire limit; no software tuning will add bandwidth.",
    fix="Nothing to tune in software; a faster or wider link (PCIE-LINK-DEGRADED / PCIE-SLOT-LIMITED) is the only lever.",
    evidence="measured bandwidth, link, ceiling and the ratio",
    source="PCIe per-lane rates after encoding (kernel PCIE_SPEED2MBS_ENC)",
)
def ceiling_hit(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job, device, limit, ddir, d, ceiling in link_bandwidths(ctx):
        if 0.85 * ceiling <= d.bw_bytes <= 1.02 * ceiling:
            measured = quote([(job.key, job.result)], f"{ddir}.bw", "GB/s")
            yield r.finding(
                f"{job.name}: {ddir} at {measured.shown} is {d.bw_bytes / ceiling:.0%} of the {limit.describe()} link",
                device.name,
                {"measured": measured.shown, "link": f"{limit.address} {limit.describe()}", "ceiling": gbs(ceiling)},
                quotes=[measured],
            )


@rule(
    id="PCIE-AER",
    family="pcie",
    level="high",
    needs="snapshot",
    title="PCIe errors counted on the device's link",
    applies="PCIe functions with AER statistics (aer_dev_* files)",
    trigger="aer_dev_fatal or aer_dev_nonfatal total > 0 on the endpoint or a bridge above it (correctable: info)",
    why="Bad TLPs, DLLPs and replays mean retransmissions or retraining: marginal signal integrity costs bandwidth and latency.",
    fix="Reseat or replace the riser/cable, try another slot, update BIOS/retimer firmware, force a lower generation as a test.",
    evidence="the port and its error totals",
    source="kernel Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats",
)
def aer(ctx: Context, r: Rule) -> Iterator[Finding]:
    for device in ctx.devices():
        for port in [p for p in [device.pcie, *device.upstream] if p]:
            bad = (port.aer_fatal or 0) + (port.aer_nonfatal or 0)
            if bad or port.aer_correctable:
                yield r.finding(
                    f"{port.address} (above {device.name}) counted PCIe errors",
                    device.name,
                    {"fatal": port.aer_fatal, "nonfatal": port.aer_nonfatal, "correctable": port.aer_correctable},
                    level=None if bad else "info",
                )


@rule(
    id="PCIE-ASPM",
    family="pcie",
    level="low",
    needs="snapshot",
    title="Aggressive PCIe link power management",
    applies="hosts with the pcie_aspm module parameter",
    trigger="pcie_aspm policy is powersave or powersupersave",
    why="Links in low-power states add exit latency to each I/O at low queue depth; negligible under sustained load.",
    fix="Boot with pcie_aspm.policy=performance for latency measurements.",
    evidence="/sys/module/pcie_aspm/parameters/policy",
    source="kernel pcie_aspm module parameter",
)
def aspm(ctx: Context, r: Rule) -> Iterator[Finding]:
    policy = ctx.snapshot.aspm_policy if ctx.snapshot else None
    if policy in ("powersave", "powersupersave"):
        yield r.finding(f"PCIe ASPM policy is {policy}", "host", {"policy": policy})
