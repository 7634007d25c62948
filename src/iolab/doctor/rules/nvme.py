"""NVMe health rules (catalogue B8), from the SMART log read with nvme-cli."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding
from iolab.models.snapshot import BlockDevice, NvmeSmart

# critical_warning bits, NVMe base specification SMART / Health log byte 0.
WARNING_BITS = (
    "spare below threshold",
    "temperature threshold exceeded",
    "reliability degraded",
    "read-only",
    "volatile memory backup failed",
    "persistent memory region read-only",
)


def _smart(ctx: Context, r: Rule) -> Iterator[tuple[BlockDevice, NvmeSmart] | Finding]:
    for device in ctx.devices():
        if not device.is_nvme or device.transport not in (None, "pcie"):
            continue
        if device.smart is None:
            yield r.not_evaluated(f"SMART of {device.name}: {device.smart_error or 'not read'}", device.name)
        else:
            yield device, device.smart


_HEALTH_FIX = (
    "Back up the data, check for a firmware update, plan a replacement; results from this drive are not representative."
)


@rule(
    id="NVME-CRITICAL-WARNING",
    family="nvme",
    level="critical",
    needs="snapshot",
    title="NVMe critical warning raised",
    applies="NVMe devices with a readable SMART log (root, nvme-cli)",
    trigger="critical_warning != 0",
    why="The controller reports spare exhaustion, over-temperature, degraded reliability or read-only media: "
    "it is failing or throttling.",
    fix=_HEALTH_FIX,
    evidence="critical_warning value and decoded bits",
    source="nvme-cli json_smart_log; NVMe base spec SMART log",
)
def critical_warning(ctx: Context, r: Rule) -> Iterator[Finding]:
    for item in _smart(ctx, r):
        if isinstance(item, Finding):
            yield item
        elif item[1].critical_warning:
            value = item[1].critical_warning
            bits = [text for bit, text in enumerate(WARNING_BITS) if value & (1 << bit)]
            yield r.finding(
                f"{item[0].name} critical warning: {', '.join(bits) or hex(value)}",
                item[0].name,
                {"critical_warning": f"{value:#x}", "bits": "; ".join(bits)},
            )


@rule(
    id="NVME-SPARE-LOW",
    family="nvme",
    level="critical",
    needs="snapshot",
    title="NVMe spare capacity at or near its threshold",
    applies="NVMe devices with a readable SMART log",
    trigger="avail_spare <= spare_thresh (critical) or within 10 points of it (high)",
    why="Spare blocks replace worn ones; when they run out the drive goes read-only.",
    fix=_HEALTH_FIX,
    evidence="avail_spare, spare_thresh",
    source="nvme-cli json_smart_log",
)
def spare(ctx: Context, r: Rule) -> Iterator[Finding]:
    for item in _smart(ctx, r):
        if isinstance(item, Finding):
            continue
        s = item[1]
        if s.avail_spare is None or s.spare_thresh is None:
            continue
        if s.avail_spare - s.spare_thresh < 10:
            yield r.finding(
                f"{item[0].name} has {s.avail_spare}% spare left (threshold {s.spare_thresh}%)",
                item[0].name,
                {"avail_spare": s.avail_spare, "spare_thresh": s.spare_thresh},
                level=None if s.avail_spare <= s.spare_thresh else "high",
            )


@rule(
    id="NVME-MEDIA-ERRORS",
    family="nvme",
    level="high",
    needs="snapshot",
    title="NVMe media errors recorded",
    applies="NVMe devices with a readable SMART log",
    trigger="media_errors > 0",
    why="Unrecovered data-integrity errors; retries slow I/O and the drive is failing.",
    fix=_HEALTH_FIX + " Inspect `nvme error-log`.",
    evidence="media_errors, num_err_log_entries",
    source="nvme-cli json_smart_log",
)
def media_errors(ctx: Context, r: Rule) -> Iterator[Finding]:
    for item in _smart(ctx, r):
        if not isinstance(item, Finding) and item[1].media_errors:
            yield r.finding(
                f"{item[0].name} recorded {item[1].media_errors} media errors",
                item[0].name,
                {"media_errors": item[1].media_errors, "error log entries": item[1].num_err_log_entries},
            )


@rule(
    id="NVME-WEAR",
    family="nvme",
    level="medium",
    needs="snapshot",
    title="NVMe worn to its rated endurance",
    applies="NVMe devices with a readable SMART log",
    trigger="percent_used >= 90",
    why="Beyond rated endurance the drive needs more ECC and retries and firmware may throttle.",
    fix="Plan a replacement; compare against a fresh drive before trusting its numbers.",
    evidence="percent_used",
    source="nvme-cli json_smart_log",
)
def wear(ctx: Context, r: Rule) -> Iterator[Finding]:
    for item in _smart(ctx, r):
        if not isinstance(item, Finding) and (item[1].percent_used or 0) >= 90:
            used = item[1].percent_used or 0
            yield r.finding(
                f"{item[0].name} is {used}% through its rated endurance",
                item[0].name,
                {"percent_used": used},
            )


def _thermal_evidence(s: NvmeSmart) -> dict[str, str]:
    """The temperatures in Celsius (the log's are Kelvin) and the minutes spent above the thresholds."""
    return {
        "temperature": f"{s.temperature_k - 273} C" if s.temperature_k else "?",
        "wctemp": f"{s.wctemp_k - 273} C" if s.wctemp_k else "?",
        "warning_temp_time": f"{s.warning_temp_time} min",
        "critical_comp_time": f"{s.critical_comp_time} min",
    }


@rule(
    id="NVME-THERMAL",
    family="nvme",
    level="high",
    needs="snapshot",
    title="NVMe at or past its warning temperature",
    applies="NVMe devices with a readable SMART log",
    trigger="temperature >= WCTEMP (high); otherwise warning_temp_time or critical_comp_time > 0 (info: it has throttled before)",
    why="A hot controller throttles; a mid-run bandwidth drop with this evidence is thermal, not garbage collection.",
    fix="Improve airflow or add a heatsink; re-run while watching the temperature.",
    evidence="temperature in C, WCTEMP/CCTEMP, minutes spent above them",
    source="nvme-cli json_smart_log and id-ctrl (wctemp, cctemp, Kelvin)",
)
def thermal(ctx: Context, r: Rule) -> Iterator[Finding]:
    for item in _smart(ctx, r):
        if isinstance(item, Finding):
            continue
        device, s = item
        evidence = _thermal_evidence(s)
        if s.temperature_k and s.wctemp_k and s.temperature_k >= s.wctemp_k:
            yield r.finding(
                f"{device.name} is at {s.temperature_k - 273} C, at or above its warning temperature",
                device.name,
                evidence,
            )
        elif (s.warning_temp_time or 0) > 0 or (s.critical_comp_time or 0) > 0:
            yield r.finding(
                f"{device.name} has spent {s.warning_temp_time} min above its warning temperature",
                device.name,
                evidence,
                level="info",
            )


@rule(
    id="NVME-FABRIC",
    family="nvme",
    level="info",
    needs="snapshot",
    title="NVMe over fabrics",
    applies="NVMe controllers",
    trigger="transport is tcp, rdma or fc",
    why="The ceilings are the network and the target (SPDK buffers, cores), not PCIe.",
    fix="Compare with the network line rate; sweep queue depth on the target side (SPDK-QD-SWEEP).",
    evidence="transport",
    source="libnvme controller attributes (transport)",
)
def fabric(ctx: Context, r: Rule) -> Iterator[Finding]:
    for device in ctx.devices():
        if device.transport in ("tcp", "rdma", "fc"):
            yield r.finding(
                f"{device.name} is NVMe over {device.transport}", device.name, {"transport": device.transport}
            )
