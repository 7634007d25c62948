"""Memory and page-cache rules (catalogue B10)."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding


@rule(
    id="MEM-THP",
    family="memory",
    level="info",
    needs="snapshot",
    title="Transparent huge pages always on",
    applies="buffered or mmap workloads",
    trigger="/sys/kernel/mm/transparent_hugepage/enabled is [always]",
    why="'always' can add compaction stalls to buffered and mmap I/O; context for odd latency, not a fault.",
    fix="Compare with madvise if buffered results show stalls.",
    evidence="transparent_hugepage/enabled",
    source="kernel Documentation/admin-guide/mm/transhuge.rst",
)
def thp(ctx: Context, r: Rule) -> Iterator[Finding]:
    if ctx.snapshot and ctx.snapshot.thp_enabled == "always":
        buffered = any(not j.direct for j in ctx.jobs)
        if buffered or not ctx.jobs:
            yield r.finding("transparent huge pages: always", "host", {"enabled": "always"})
