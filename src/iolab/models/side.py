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
# Where fio's jobs started on the samplers' clock, in ms (`fio_startup_ms`): stored by the runner where fio's
# output stamp says it, read by every reader of sampled series through `measured_from_ms`.
FIO_START = "fio_start_ms"

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


def measured_from_ms(point: Point, result: Result, startup_ms: float = 0) -> int:
    """Where fio's measured seconds start on the samplers' clock (zero just before fio starts): fio's start-up
    (`startup_ms`, stored as FIO_START where fio's stamp said it: `fio_startup_ms`), then its ramp or, with
    stopping on (no ramp), the warm-up it found. fio's own logs start there, so every sampled series read beside
    them (side figures, interference, the doctor's device series, the timeline) is cut and moved by this one
    figure; the samples themselves stay as sampled (readers date a series' first interval from the samplers'
    zero)."""
    warmup = result.stopping.discarded_s if result.stopping is not None else 0
    return int(startup_ms + (point.job.ramp_seconds + warmup) * 1000)


def measured_until_ms(point: Point, result: Result, startup_ms: float = 0) -> int:
    """Where fio's measured seconds end on the samplers' clock: its start-up and ramp, then its longest
    direction's runtime (fio's runtime is after its ramp; a stopping point's warm-up is inside it, so this end
    holds with stopping on too). Read with `measured_from_ms` by a figure summed, not averaged, over the
    measured seconds (perf's counts: `iolab.telemetry.perf.Counted.over`)."""
    runtime = max((d.runtime_ms for d in result.directions.values()), default=0)
    return int(startup_ms + point.job.ramp_seconds * 1000 + runtime)


STAMP_SLACK_MS = 250  # how far before the samplers' start a read of fio's start may fall and still be read as 0


def fio_startup_ms(
    sampler_started_ms: int, stamp_ms: int, runtime_ms: int, ramp_ms: int, sampled_ms: int
) -> int | None:
    """How long after the samplers started fio's jobs did: where fio's logs start (its output's stamp, written as
    its jobs end, less their measured runtime; within some 15 ms of the logs' own epoch stamps) less its ramp, on
    the wall clock the samplers' start was read on. fio takes tens of ms to start on an idle host and 2 s were seen
    on a loaded one: the runner stores it (FIO_START) and `measured_from_ms` adds it. None where it cannot be read:
    no stamp (an imported or remote output), or a start outside the `sampled_ms` the samplers ran (another host's
    clock, a clock stepped meanwhile)."""
    if stamp_ms <= 0 or sampler_started_ms <= 0:
        return None
    startup = stamp_ms - runtime_ms - ramp_ms - sampler_started_ms
    if -STAMP_SLACK_MS <= startup < 0:  # the stamp's own slack: fio started with the samplers
        return 0
    return startup if 0 <= startup <= sampled_ms else None
