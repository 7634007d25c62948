"""Findings across the hosts of a point: a failed host, a slow host, a straggler.

The aggregate of a multi-host point hides its hosts. A slow host
(a bad NIC, a mount with other options, a congested switch port) makes
the total lower than it should be; a host that finishes early
(first-done against last-done, elbencho's stonewall) leaves the others to
run with less contention, so their share is flattered.
"""

from __future__ import annotations

from iolab.models import Finding, Severity
from iolab.report import units
from iolab.store.queries import HostRow

IMBALANCE_RATIO = 0.8  # the slowest host below 80% of the fastest
STRAGGLER_RATIO = 0.9  # the first host done before 90% of the last one's time


def host_findings(point: str, rows: list[HostRow]) -> list[Finding]:
    """What a reader should know about the hosts of one point."""
    findings = [
        Finding(rule_id="HOSTS-FAILED", family="hosts", severity=Severity.WARNING,
                title=f"{point}: host {row.host} failed; the result is of the other hosts", subject=row.host,
                evidence={"error": row.error},
                why="A host that stops mid-point takes its share of the load with it: the aggregate is of fewer "
                    "clients than planned and is not comparable with complete points.",
                fix="Check the host (`ssh HOST`, `dmesg`), then rerun the point with every host")
        for row in rows if row.status != "ok"
    ]
    done = [r for r in rows if r.status == "ok" and r.bw_bytes]
    if len(done) >= 2:
        slow = min(done, key=lambda r: r.bw_bytes or 0.0)
        fast = max(done, key=lambda r: r.bw_bytes or 0.0)
        ratio = (slow.bw_bytes or 0.0) / (fast.bw_bytes or 1.0)
        if ratio < IMBALANCE_RATIO:
            findings.append(Finding(
                rule_id="HOSTS-IMBALANCE", family="hosts", severity=Severity.WARNING,
                title=f"{point}: {slow.host} reached {units.percent(100 * ratio)} of {fast.host}'s bandwidth",
                subject=slow.host,
                evidence={"slowest": f"{slow.host} {units.mb_per_s(slow.bw_bytes or 0)} MB/s",
                          "fastest": f"{fast.host} {units.mb_per_s(fast.bw_bytes or 0)} MB/s",
                          "hosts": len(done)},
                why="Hosts running the same job should get similar shares; one far behind points at its own path "
                    "(NIC, mount options, CPU, switch port) rather than at the shared storage.",
                fix=f"Compare {slow.host} with {fast.host}: `iolab diff-env` on their snapshots, link speed, mount "
                    "options; run the point on each alone"))
        runtimes = [r.runtime_ms for r in done if r.runtime_ms]
        if len(runtimes) >= 2 and min(runtimes) < STRAGGLER_RATIO * max(runtimes):
            first = min(done, key=lambda r: r.runtime_ms or 0)
            last = max(done, key=lambda r: r.runtime_ms or 0)
            findings.append(Finding(
                rule_id="HOSTS-STRAGGLER", family="hosts", severity=Severity.WARNING,
                title=f"{point}: {first.host} was done after {units.duration((first.runtime_ms or 0) / 1000)}, "
                      f"{last.host} after {units.duration((last.runtime_ms or 0) / 1000)}",
                subject=last.host,
                evidence={"first done": f"{first.host} {first.runtime_ms} ms",
                          "last done": f"{last.host} {last.runtime_ms} ms"},
                why="Once the first host is done, the others run with less contention, so the aggregate over the "
                    "whole run is neither the load of all hosts nor of some of them (stonewalling).",
                fix="Use time_based=1 with a runtime so every host runs for the same time"))
    return findings
