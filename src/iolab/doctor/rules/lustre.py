"""Lustre rules (catalogue B14), from the client mount and its osc parameters."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.doctor.rules.fs import network_filesystems
from iolab.models import Finding


@rule(
    id="LUS-OST-FULL",
    family="lustre",
    level="medium",
    needs="snapshot",
    title="Lustre file system past 75% full",
    applies="lustre mounts with statvfs read",
    trigger="aggregate used >= 75%; per-OST spread needs `lfs df`, not read here",
    why="Lustre's own guidance is to add capacity before OSTs pass 80%: allocation slows and writes degrade as they fill "
    "(one site measured the fall from 75%).",
    fix="Add OSTs or free space, rebalance; run `lfs df` to find the fullest OSTs and benchmark on empty ones.",
    evidence="used % of the mount",
    source="wiki.lustre.org Handling_Full_OSTs",
)
def ost_full(ctx: Context, r: Rule) -> Iterator[Finding]:
    for fs in network_filesystems(ctx, frozenset({"lustre"})):
        used = fs.used_percent
        if used is not None and used >= 75:
            yield r.finding(
                f"Lustre {fs.mount_point} is {used:.0f}% full",
                fs.mount_point,
                {"used": f"{used:.1f}%"},
            )


@rule(
    id="LUS-CHECKSUMS",
    family="lustre",
    level="medium",
    needs="snapshot",
    title="Lustre client checksums on",
    applies="Lustre clients (osc parameters readable)",
    trigger="osc.*.checksums = 1",
    why="Every bulk RPC is checksummed on client and server, at a CPU cost on both; one site measured 17% less "
    "write bandwidth with them on.",
    fix="A/B with lctl set_param osc.*.checksums=0; if integrity is required keep it and pick a hardware-accelerated algorithm.",
    evidence="osc checksums values",
    source="NVIDIA GDS troubleshooting guide, EXAScaler performance",
)
def checksums(ctx: Context, r: Rule) -> Iterator[Finding]:
    values = ctx.snapshot.lustre_checksums if ctx.snapshot else {}
    on = {k: v for k, v in values.items() if v == "1"}
    if on:
        yield r.finding(f"checksums on for {len(on)} OSC(s)", "lustre", on)
