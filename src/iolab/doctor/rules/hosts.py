"""Rules across the hosts of a multi-host point: a failed host, a slow host, a straggler.

The aggregate of a multi-host point hides its hosts. A slow host (a bad NIC,
a mount with other options, a congested switch port) makes the total lower
than it should be; a host that finishes early (first-done against last-done,
elbencho's stonewall) leaves the others to run with less contention, so
their share is flattered.
"""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding, units

IMBALANCE_RATIO = 0.8  # the slowest host below 80% of the fastest
STRAGGLER_RATIO = 0.9  # the first host done before 90% of the last one's time


@rule(
    id="HOSTS-FAILED",
    family="hosts",
    level="high",
    needs="hosts",
    title="A host failed during a point",
    applies="multi-host points",
    trigger="a host's part of the point did not finish (disconnected, fio error, no result)",
    why="A host that stops mid-point takes its share of the load with it: the aggregate is of fewer clients than "
    "planned and is not comparable with complete points.",
    fix="Check the host (`ssh HOST`, `dmesg`), then run the point again with every host.",
    evidence="the host's error",
    source="fio client/server per-host results",
)
def failed(ctx: Context, r: Rule) -> Iterator[Finding]:
    for point, rows in ctx.hosts.items():
        for row in rows:
            if row.status != "ok":
                yield r.finding(
                    f"{point}: host {row.host} failed; the result is of the other hosts", row.host, {"error": row.error}
                )


@rule(
    id="HOSTS-IMBALANCE",
    family="hosts",
    level="high",
    needs="hosts",
    title="One host got far less bandwidth than another",
    applies="multi-host points with at least 2 hosts finished",
    trigger="the slowest host below 80% of the fastest host's bandwidth",
    why="Hosts running the same job should get similar shares; one far behind points at its own path (NIC, "
    "mount options, CPU, switch port) rather than at the shared storage.",
    fix="Compare the two hosts: `iolab diff-env` on their snapshots, link speed, mount options; run the point on "
    "each alone.",
    evidence="slowest and fastest host with their bandwidth",
    source="per-host results of fio client/server",
)
def imbalance(ctx: Context, r: Rule) -> Iterator[Finding]:
    for point, rows in ctx.hosts.items():
        done = [row for row in rows if row.status == "ok" and row.bw_bytes]
        if len(done) < 2:
            continue
        slow = min(done, key=lambda row: row.bw_bytes or 0.0)
        fast = max(done, key=lambda row: row.bw_bytes or 0.0)
        ratio = (slow.bw_bytes or 0.0) / (fast.bw_bytes or 1.0)
        if ratio < IMBALANCE_RATIO:
            yield r.finding(
                f"{point}: {slow.host} reached {units.percent(100 * ratio)} of {fast.host}'s bandwidth",
                slow.host,
                {
                    "slowest": f"{slow.host} {units.mb_per_s(slow.bw_bytes or 0)} MB/s",
                    "fastest": f"{fast.host} {units.mb_per_s(fast.bw_bytes or 0)} MB/s",
                    "hosts": len(done),
                },
            )


@rule(
    id="HOSTS-STRAGGLER",
    family="hosts",
    level="high",
    needs="hosts",
    title="Hosts finished a point at different times",
    applies="multi-host points with at least 2 hosts finished",
    trigger="the first host done before 90% of the last host's runtime",
    why="Once the first host is done, the others run with less contention, so the aggregate over the whole run "
    "is neither the load of all hosts nor of some of them (stonewalling).",
    fix="Use time_based=1 with a runtime so every host runs for the same time.",
    evidence="first and last host done, with their runtimes",
    source="per-host runtimes of fio client/server",
)
def straggler(ctx: Context, r: Rule) -> Iterator[Finding]:
    for point, rows in ctx.hosts.items():
        done = [row for row in rows if row.status == "ok" and row.runtime_ms]
        if len(done) < 2:
            continue
        first = min(done, key=lambda row: row.runtime_ms or 0)
        last = max(done, key=lambda row: row.runtime_ms or 0)
        if (first.runtime_ms or 0) < STRAGGLER_RATIO * (last.runtime_ms or 0):
            yield r.finding(
                f"{point}: {first.host} was done after {units.duration((first.runtime_ms or 0) / 1000)}, "
                f"{last.host} after {units.duration((last.runtime_ms or 0) / 1000)}",
                last.host,
                {
                    "first done": f"{first.host} {(first.runtime_ms or 0) / 1000:.1f} s",
                    "last done": f"{last.host} {(last.runtime_ms or 0) / 1000:.1f} s",
                },
            )
