"""CPU vulnerability mitigation rules (catalogue B3): cost paid on every kernel entry."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding


@rule(
    id="MITIG-SRSO",
    family="mitigations",
    level="medium",
    needs="snapshot",
    title="AMD SRSO (Inception) mitigation active",
    applies="AMD Zen hosts (spec_rstack_overflow present)",
    trigger="spec_rstack_overflow starts with 'Mitigation: Safe RET' or 'Mitigation: IBPB' (not 'on VMEXIT')",
    why="Safe RET sends every kernel function return through a thunk; syscall- and interrupt-heavy I/O "
    "(small blocks, sync engines, many jobs) pays it. One Lustre OSS measured 14% less write bandwidth with it.",
    fix="On a trusted, isolated host A/B test spec_rstack_overflow=microcode (with current microcode) or =off, "
    "or mitigations=off; report the delta and leave the decision to security.",
    evidence="/sys/devices/system/cpu/vulnerabilities/spec_rstack_overflow",
    source="kernel Documentation/admin-guide/hw-vuln/srso.rst; siderolabs/talos#9539",
)
def srso(ctx: Context, r: Rule) -> Iterator[Finding]:
    vulns = ctx.snapshot.vulnerabilities if ctx.snapshot else {}
    if not vulns:
        yield r.not_evaluated("CPU vulnerability files unreadable", "host")
        return
    value = vulns.get("spec_rstack_overflow", "")
    low = value.lower()
    if low.startswith("mitigation: safe ret") or (low.startswith("mitigation: ibpb") and "vmexit" not in low):
        yield r.finding(f"SRSO mitigation in use: {value}", "host", {"spec_rstack_overflow": value})


# (vulnerability file, lower-case substring, without-substring) that mark a costly mitigation.
_COSTLY = (
    ("meltdown", "pti", None),
    ("retbleed", "untrained return thunk", None),
    ("retbleed", "ibrs", "enhanced"),
    ("spectre_v2", "retpolines", None),
    ("spectre_v2", "ibrs", "enhanced"),
    ("mds", "clear cpu buffers", None),
    ("mmio_stale_data", "clear cpu buffers", None),
    ("tsx_async_abort", "clear cpu buffers", None),
    ("gather_data_sampling", "mitigation: microcode", None),
)


def _active(line: str, needle: str, unless: str | None) -> bool:
    """Whether a vulnerabilities line says the costly mitigation is on (`needle`, and not `unless`)."""
    value = line.lower()
    return needle in value and not (unless and unless in value)


@rule(
    id="MITIG-OTHER",
    family="mitigations",
    level="info",
    needs="snapshot",
    title="Other mitigations with a per-syscall cost are active",
    applies="any host with /sys/devices/system/cpu/vulnerabilities",
    trigger="PTI, retpolines, non-enhanced IBRS, untrained return thunk, CPU buffer clearing or GDS microcode in use "
    "(medium when a job is CPU-bound)",
    why="These add work to every kernel entry, interrupt and context switch; psync and small-block tests are syscall-bound. "
    "Two installs of one server with different mitigations can differ by several percent.",
    fix="A/B with mitigations=off on an isolated test host, then find which single mitigation matters.",
    evidence="the costly lines of the vulnerabilities table",
    source="kernel-parameters mitigations=; hw-vuln documentation",
)
def other(ctx: Context, r: Rule) -> Iterator[Finding]:
    vulns = ctx.snapshot.vulnerabilities if ctx.snapshot else {}
    if not vulns:
        return  # MITIG-SRSO already reports the unreadable table
    hits = {name: vulns[name] for name, needle, unless in _COSTLY if _active(vulns.get(name, ""), needle, unless)}
    if hits:
        busy = any(j.result and j.result.jobs and j.result.cpu / j.result.jobs >= 90 for j in ctx.results)
        yield r.finding(
            f"{len(hits)} costly mitigation(s) active: {', '.join(hits)}",
            "host",
            hits,
            level="medium" if busy else None,
        )
