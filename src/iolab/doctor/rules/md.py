"""md RAID rules (catalogue B11, B13)."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding


@rule(
    id="MD-STRIPE-CACHE",
    family="md",
    level="medium",
    needs="snapshot",
    title="RAID5/6 stripe cache at its default",
    applies="md RAID4/5/6 arrays",
    trigger="md/stripe_cache_size <= 256",
    why="The default 256-entry cache forces read-modify-write on parity RAID under parallel writes.",
    fix="echo 4096 (up to 32768) > /sys/block/mdN/md/stripe_cache_size (memory: size x 4 KiB x members); raise group_thread_cnt.",
    evidence="md/level, md/stripe_cache_size",
    source="kernel Documentation/admin-guide/md.rst",
)
def stripe_cache(ctx: Context, r: Rule) -> Iterator[Finding]:
    for device in ctx.devices():
        if device.md_level in ("raid4", "raid5", "raid6") and (device.md_stripe_cache_size or 0) <= 256:
            yield r.finding(
                f"{device.name} ({device.md_level}) stripe cache is {device.md_stripe_cache_size}",
                device.name,
                {"level": device.md_level, "stripe_cache_size": device.md_stripe_cache_size},
            )


@rule(
    id="BG-RAID-SYNC",
    family="md",
    level="high",
    needs="snapshot",
    title="md array is resyncing, recovering or checking",
    applies="md arrays",
    trigger="md/sync_action is not idle",
    why="The array shares its bandwidth with the rebuild or check, so results are not representative.",
    fix="Wait for sync_action to return to idle (or pause the check) before benchmarking.",
    evidence="md/sync_action",
    source="kernel Documentation/admin-guide/md.rst",
)
def raid_sync(ctx: Context, r: Rule) -> Iterator[Finding]:
    for device in ctx.devices():
        if device.md_sync_action not in (None, "idle", "frozen"):
            yield r.finding(
                f"{device.name} is busy: {device.md_sync_action}", device.name, {"sync_action": device.md_sync_action}
            )
