"""Figures beside a point's I/O rate that explain it: wire bandwidth, CPU per I/O, hardware counters and a
plan's own metrics.

An I/O rate alone does not say why it is what it is: a 200 MB/s NVMe-oF point is at its wire's limit, or
its submitter burns 40 µs of CPU per I/O, or its working set fell out of the last-level cache. Each such
figure is one `PointMetric` stored with the point (`point_metrics` table) under one of the names below, or
stored without a value and with the reason there is none, so a page can say why a column is missing
instead of leaving it blank.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iolab.models.point import Point
from iolab.models.result import Result

# bytes/s received ("wire.<interface>.rx") and sent (".tx") on an interface over the measured seconds;
# "wire" alone carries the reason no interface is shown.
WIRE = "wire"
RX, TX = "rx", "tx"
# The whole host's busy CPU time (every CPU, every process and the kernel) per I/O, in µs.
HOST_CPU_US_PER_IO = "host_cpu_us_per_io"
# From `perf stat -a` over the measured window: last-level cache hit rate (percent) and CPU cycles per I/O;
# "perf" alone carries the reason there are no hardware counters.
LLC_HIT_PCT = "llc_hit_pct"
CYCLES_PER_IO = "cycles_per_io"
PERF = "perf"
# A plan's own metric: "cmd.<name>", the mean of the numbers its command printed, read every second while
# fio ran (before issue 42, once after the point); "cmd.<name>.max", the largest of them.
COMMAND = "cmd"
MAX = "max"

# A plan's metric name becomes a column and a CSV header: a word, so it needs no quoting anywhere.
METRIC_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")


@dataclass(frozen=True)
class PointMetric:
    """One side figure of a point: its value, or None and why there is none (`problem`)."""

    name: str
    value: float | None
    problem: str = ""


def wire_name(interface: str, direction: str) -> str:
    return f"{WIRE}.{interface}.{direction}"


def wire_parts(name: str) -> tuple[str, str] | None:
    """(interface, "rx" or "tx") of a wire metric's name; None for any other name. Interface names may
    hold dots (a VLAN's `eth0.100`), so the direction is split off the end."""
    prefix, _, rest = name.partition(".")
    interface, _, direction = rest.rpartition(".")
    if prefix != WIRE or not interface or direction not in (RX, TX):
        return None
    return interface, direction


def command_name(name: str) -> str:
    return f"{COMMAND}.{name}"


def command_max_name(name: str) -> str:
    """The stored name of a metric command's largest reading (a metric's name holds no dot)."""
    return f"{COMMAND}.{name}.{MAX}"


@dataclass(frozen=True)
class GaugeReading:
    """One reading of a plan's metric command while a point ran: when it started (ms from the telemetry
    sampler's zero, just before fio starts), the number it printed, or None and why not."""

    t_ms: int
    value: float | None
    problem: str = ""


def fio_cpu_us_per_io(result: Result) -> float | None:
    """fio's own CPU time per I/O, in µs: its jobs' usr + sys (percent of one CPU: CPU time over fio's run
    time) divided by the I/O rate of every direction. It counts fio's processes only, not the kernel threads
    or the interrupts that serve its I/O elsewhere (the host's figure has those). None when fio reported no
    CPU or no I/O."""
    iops = sum(d.iops for d in result.directions.values())
    if iops <= 0 or result.cpu <= 0:
        return None
    return result.cpu / 100.0 / iops * 1e6


def measured_from_ms(point: Point, result: Result) -> int:
    """Where fio's measured seconds start on the samplers' clock (zero just before fio starts): after fio's ramp
    or, with stopping on (no ramp), after the warm-up it found. fio's own logs start there, so every sampled
    series read beside them (side figures, interference, the doctor's device series, the timeline) is cut and
    moved by this one figure."""
    warmup = result.stopping.discarded_s if result.stopping is not None else 0
    return int((point.job.ramp_seconds + warmup) * 1000)
