"""Kernel build and boot option rules (catalogue B5)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding
from iolab.models.snapshot import KERNEL_DEBUG_OPTIONS, Snapshot


def _debug_options(snap: Snapshot) -> dict[str, str]:
    """The debug options set in the kernel's build config (`=y`), and the debug tokens of its command line."""
    found = {k: v for k, v in snap.kernel_config.items() if k in KERNEL_DEBUG_OPTIONS and v == "y"}
    tokens = [t for t in (snap.cmdline or "").split() if t.startswith("slub_debug") or t == "debug_pagealloc=on"]
    return found | ({"cmdline": " ".join(tokens)} if tokens else {})


@rule(
    id="KERN-DEBUG",
    family="kernel",
    level="high",
    needs="snapshot",
    title="Debug kernel or heavy debug options",
    applies="any host",
    trigger="release ends in 'debug', a lock/memory debug CONFIG_* =y, or slub_debug / debug_pagealloc=on on the cmdline",
    why="Debug kernels (Fedora kernel-debug, most Rawhide kernels) check locks, slabs and VM state on hot paths; "
    "DEBUG_PAGEALLOC alone causes an extreme slowdown. Landing on one explains 'slower after switching distribution'.",
    fix="Boot a release (non-debug) kernel for benchmarking.",
    evidence="kernel release, the debug options found",
    source="fedoraproject.org/wiki/KernelDebugStrategy",
)
def debug(ctx: Context, r: Rule) -> Iterator[Finding]:
    snap = ctx.snapshot
    if snap is None:
        return
    release = snap.kernel or ""
    found = _debug_options(snap)
    if re.search(r"[+.-]?debug$", release) or found:
        yield r.finding(f"kernel {release} carries debug options", "host", {"release": release, **found})
    elif not snap.kernel_config:
        yield r.not_evaluated(
            f"build config of {release or 'the kernel'} not readable (/boot/config-*); "
            "only the release name was checked",
            "host",
        )


@rule(
    id="KERN-ISOLCPUS-MANAGED-IRQ",
    family="kernel",
    level="medium",
    needs="snapshot",
    title="isolcpus with managed_irq confines NVMe queue interrupts",
    applies="any host",
    trigger="the kernel command line has isolcpus=...managed_irq...",
    why="With managed_irq, NVMe queue interrupts go only to housekeeping cores and the queue count shrinks to theirs; "
    "fio on isolated cores completes its I/O remotely.",
    fix="Run fio on housekeeping cores, or drop managed_irq for storage benchmarks.",
    evidence="the isolcpus token",
    source="suse-edge/suse-edge.github.io#656",
)
def isolcpus(ctx: Context, r: Rule) -> Iterator[Finding]:
    for token in (ctx.snapshot.cmdline or "").split() if ctx.snapshot else []:
        if token.startswith("isolcpus=") and "managed_irq" in token:
            yield r.finding("isolcpus=managed_irq on the kernel command line", "host", {"cmdline": token})


_SLOW_CLOCKSOURCES = ("hpet", "acpi_pm", "pit", "jiffies")


@rule(
    id="KERN-CLOCKSOURCE",
    family="kernel",
    level="high",
    needs="snapshot",
    title="Slow kernel clock source",
    applies="any host that names its clock source",
    trigger="/sys/devices/system/clocksource/clocksource0/current_clocksource is hpet, acpi_pm, pit or jiffies",
    why="fio reads the clock several times per I/O (submission, completion, latency). With the TSC the read stays in "
    "user space; hpet and acpi_pm are a port or MMIO read of about a microsecond each, which caps a CPU-bound job "
    "and inflates small latencies. The kernel drops to them when its watchdog finds the TSC unstable.",
    fix="Find why the TSC was marked unstable (dmesg 'clocksource'); on a sound TSC boot with clocksource=tsc "
    "(tsc=reliable on VMs whose hypervisor exposes an invariant TSC).",
    evidence="current clock source",
    source="kernel Documentation/admin-guide/kernel-parameters.txt (clocksource=, tsc=)",
)
def clocksource(ctx: Context, r: Rule) -> Iterator[Finding]:
    current = ctx.snapshot.clocksource if ctx.snapshot else None
    if current in _SLOW_CLOCKSOURCES:
        yield r.finding(f"the kernel keeps time with {current}", "host", {"clocksource": current})
