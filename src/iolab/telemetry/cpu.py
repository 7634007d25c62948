"""CPU time per CPU from /proc/stat, turned into percentages after the run."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CpuTimes:
    """Cumulative clock ticks of one CPU line ("cpu" is the sum of all CPUs)."""

    user: int  # user + nice: both are application time
    system: int
    idle: int
    iowait: int
    irq: int
    softirq: int
    steal: int

    @property
    def total(self) -> int:
        # guest and guest_nice are already inside user and nice, so they are not added again.
        return self.user + self.system + self.idle + self.iowait + self.irq + self.softirq + self.steal


def parse_proc_stat(text: str) -> dict[str, CpuTimes]:
    """CPU lines of /proc/stat by name: "cpu" (all CPUs) and "cpu0", "cpu1", ..."""
    out: dict[str, CpuTimes] = {}
    for line in text.splitlines():
        if not line.startswith("cpu"):
            continue
        fields = line.split()
        v = [int(f) for f in fields[1:9]] + [0] * (8 - len(fields[1:9]))
        out[fields[0]] = CpuTimes(
            user=v[0] + v[1],
            system=v[2],
            idle=v[3],
            iowait=v[4],
            irq=v[5],
            softirq=v[6],
            steal=v[7],
        )
    return out


@dataclass(frozen=True)
class CpuPercent:
    """Share of one CPU's time (or, for "cpu", of all CPUs' time) in each state, 0-100."""

    usr: float
    sys: float
    iowait: float
    irq: float
    softirq: float
    steal: float
    busy: float  # everything but idle and iowait: what a saturation check compares with 100


def cpu_percent(before: CpuTimes, after: CpuTimes) -> CpuPercent | None:
    """Percentages between two readings; None when no tick passed or a counter went backwards."""
    total = after.total - before.total
    if total <= 0:
        return None
    parts = [
        after.user - before.user,
        after.system - before.system,
        after.iowait - before.iowait,
        after.irq - before.irq,
        after.softirq - before.softirq,
        after.steal - before.steal,
    ]
    if min(parts) < 0:
        return None
    usr, sys_, iowait, irq, softirq, steal = (100.0 * p / total for p in parts)
    return CpuPercent(
        usr=usr,
        sys=sys_,
        iowait=iowait,
        irq=irq,
        softirq=softirq,
        steal=steal,
        # one division of whole ticks, so a fully busy interval is exactly 100 (a sum of rounded shares can
        # come out a hair above it)
        busy=100.0 * (sum(parts) - parts[2]) / total,  # parts[2] is iowait
    )
