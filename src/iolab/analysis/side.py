"""Side figures of one point from what was sampled beside fio: wire bandwidth, the host's CPU per I/O,
perf's hardware counts turned into a cache hit rate and cycles per I/O, and a plan's metric commands read
every second (their mean and largest reading).

perf's counts are summed over the same measured seconds, cut from its intervals before they come here
(`iolab.telemetry.perf.Counted.over`).

Every figure is over the measured seconds only. fio's ramp is not measured, so a telemetry interval that
began before the ramp ended is left out: an interval is kept when it starts at or after `start_ms` (the
ramp, in the sampler's time, whose zero is just before fio starts). Means are weighted by interval
length, because the sampler's last interval (to the moment fio exits) is shorter than the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from iolab.models import Sample
from iolab.models.side import (
    CYCLES_PER_IO,
    HOST_CPU_US_PER_IO,
    LLC_HIT_PCT,
    PERF,
    RX,
    TX,
    WIRE,
    GaugeReading,
    PointMetric,
    command_max_name,
    command_name,
    wire_name,
)

NET_BW = "net.bw"  # as the sampler writes it (`iolab.telemetry.sampler.NET_BW`): bytes/s, ddir rx/tx
CPU_BUSY = "cpu.busy"  # percent of the CPU's time not idle or waiting for I/O; source "cpu" is every CPU
ALL_CPUS = "cpu"
# An interface is on the wire of a point when it moved more than this (bytes/s, rx or tx) over the measured
# seconds: an idle host's own chatter (ssh, DNS, fio's client/server status messages) stays below it.
WIRE_THRESHOLD = 1e6
# perf stat's events: what `perf_figures` reads, in the order `perf stat -e` is given them.
CYCLES, CACHE_REFERENCES, CACHE_MISSES = "cycles", "cache-references", "cache-misses"


def window_means(samples: Sequence[Sample], metric: str, start_ms: int) -> dict[tuple[str, str], float]:
    """(source, ddir) -> `metric`'s mean over the intervals that start at or after `start_ms`, each weighted
    by its length. A sample's interval ends at its `t_ms` and starts at the previous sample of its series
    (at 0, the sampler's first reading, for the first)."""
    series: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for s in samples:
        if s.metric == metric:
            series.setdefault((s.source, s.ddir), []).append((s.t_ms, s.value))
    means: dict[tuple[str, str], float] = {}
    for key, points in series.items():
        weighted = length = 0.0
        previous = 0
        for t_ms, value in sorted(points):
            if previous >= start_ms and t_ms > previous:
                weighted += value * (t_ms - previous)
                length += t_ms - previous
            previous = t_ms
        if length > 0:
            means[key] = weighted / length
    return means


@dataclass(frozen=True)
class Wire:
    """Interfaces that carried traffic: name -> (rx, tx) bytes/s; and the busiest one when none did."""

    active: dict[str, tuple[float, float]]
    busiest: tuple[str, float] | None  # (interface, its larger direction in bytes/s); None: no samples


def wire_traffic(samples: Sequence[Sample], start_ms: int, threshold: float = WIRE_THRESHOLD) -> Wire:
    """Each interface whose mean rx or tx over the measured seconds exceeds `threshold`."""
    means = window_means(samples, NET_BW, start_ms)
    interfaces = sorted({source for source, _ in means})
    rates = {i: (means.get((i, RX), 0.0), means.get((i, TX), 0.0)) for i in interfaces}
    active = {i: rx_tx for i, rx_tx in rates.items() if max(rx_tx) > threshold}
    busiest = max(((i, max(rx_tx)) for i, rx_tx in rates.items()), key=lambda pair: pair[1], default=None)
    return Wire(active, busiest)


def wire_metrics(wire: Wire, why_none: str) -> list[PointMetric]:
    """The wire figures to store: rx and tx of each active interface, or one `wire` row saying why none."""
    if not wire.active:
        return [PointMetric(WIRE, None, why_none)]
    return [
        PointMetric(wire_name(interface, direction), value)
        for interface, (rx, tx) in wire.active.items()
        for direction, value in ((RX, rx), (TX, tx))
    ]


def host_busy_cores(samples: Sequence[Sample], start_ms: int) -> float | None:
    """How many CPUs' worth of time the whole host was busy, on average over the measured seconds (every
    process and the kernel: fio, its I/O's interrupts and kernel threads, and anything else running).
    None without CPU samples."""
    means = window_means(samples, CPU_BUSY, start_ms)
    everything = means.get((ALL_CPUS, "total"))
    cpus = sum(1 for source, _ in means if source != ALL_CPUS)
    if everything is None or cpus == 0:
        return None
    return everything / 100.0 * cpus


def host_cpu_metric(samples: Sequence[Sample], start_ms: int, iops: float) -> PointMetric:
    """The host's CPU time per I/O in µs, or why there is none."""
    cores = host_busy_cores(samples, start_ms)
    if cores is None:
        return PointMetric(HOST_CPU_US_PER_IO, None, "no CPU telemetry inside the measured seconds")
    if iops <= 0:
        return PointMetric(HOST_CPU_US_PER_IO, None, "no I/O")
    return PointMetric(HOST_CPU_US_PER_IO, cores / iops * 1e6)


def perf_figures(counts: Mapping[str, float | None], iops: float, window_s: float) -> list[PointMetric]:
    """LLC hit rate and cycles per I/O from `perf stat -a` counts over the measured window.

    `counts` maps each event to its count (None: perf could not count it) over the `window_s` seconds of
    fio's measured window perf counted (`iolab.telemetry.perf.Counted.over`), the I/O in them being `iops` x
    `window_s`. A figure whose events perf could not count is left out; when none is left, one `perf` row
    says why.
    """
    found: list[PointMetric] = []
    references, misses, cycles = counts.get(CACHE_REFERENCES), counts.get(CACHE_MISSES), counts.get(CYCLES)
    if references and misses is not None:
        found.append(PointMetric(LLC_HIT_PCT, 100.0 * max(0.0, 1.0 - misses / references)))
    if cycles is not None and iops > 0 and window_s > 0:
        found.append(PointMetric(CYCLES_PER_IO, cycles / (iops * window_s)))
    if not found:
        uncounted = [event for event in (CYCLES, CACHE_REFERENCES, CACHE_MISSES) if counts.get(event) is None]
        why = f"perf counted none of {', '.join(uncounted)}" if uncounted else "no I/O in perf's window"
        found.append(PointMetric(PERF, None, why))
    return found


def gauge_metrics(name: str, readings: Sequence[GaugeReading], start_ms: int) -> list[PointMetric]:
    """A metric command's figures over the measured seconds: the mean of its readings taken at or after
    `start_ms` and the largest of them (the readings are a second apart, so their plain mean is the
    gauge's mean over time). Readings without a number are counted and named, never averaged in as 0;
    with no number at all, one figure says why."""
    kept = [r for r in readings if r.t_ms >= start_ms]
    values = [r.value for r in kept if r.value is not None]
    problems = [r.problem for r in kept if r.value is None]
    if not values:
        why = problems[0] if problems else "no reading inside the measured seconds (fio ended before the first)"
        return [PointMetric(command_name(name), None, why)]
    problem = f"{len(problems)} of {len(kept)} readings without a number ({problems[0]})" if problems else ""
    return [
        PointMetric(command_name(name), sum(values) / len(values), problem),
        PointMetric(command_max_name(name), max(values), problem),
    ]
